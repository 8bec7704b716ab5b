// CUDA graphs for zerosum: libtorch's at::cuda::CUDAGraph behind a few C functions, which
// crates/nn/src/graphs.rs loads at run time (dlopen). tch has no graph API, and a binary
// that linked libtorch's CUDA half by name could not start on a machine without it: this
// library is built apart (scripts/build-cuda-graphs.sh) and only a CUDA run opens it.
//
// A capture goes: enter (a side stream becomes the thread's current one; PyTorch captures
// only off the default stream), warm-up work, begin, the work to record, end, leave (the
// old stream is current again). Every call returns 0, or 1 with a message in `error`.

#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>

#include <cstring>
#include <exception>
#include <optional>

namespace {

struct Capture {
  at::cuda::CUDAGraph graph;
  std::optional<c10::cuda::CUDAStream> saved;
  std::optional<c10::cuda::CUDAStream> side;
};

void write_error(char* error, size_t length, const char* message) {
  if (error == nullptr || length == 0) return;
  std::strncpy(error, message, length - 1);
  error[length - 1] = '\0';
}

template <typename F>
int guarded(char* error, size_t length, F work) {
  try {
    work();
    return 0;
  } catch (const std::exception& e) {
    write_error(error, length, e.what());
  } catch (...) {
    write_error(error, length, "unknown C++ exception");
  }
  return 1;
}

}  // namespace

extern "C" {

int zs_graph_new(void** out, char* error, size_t length) {
  return guarded(error, length, [&] { *out = new Capture(); });
}

void zs_graph_free(void* capture) { delete static_cast<Capture*>(capture); }

int zs_graph_enter(void* capture, int device, char* error, size_t length) {
  return guarded(error, length, [&] {
    auto* c = static_cast<Capture*>(capture);
    auto index = static_cast<c10::DeviceIndex>(device);
    c10::cuda::device_synchronize();
    c->saved = c10::cuda::getCurrentCUDAStream(index);
    c->side = c10::cuda::getStreamFromPool(false, index);
    c10::cuda::setCurrentCUDAStream(*c->side);
  });
}

// thread_local != 0 lets other threads allocate device memory during the capture (an
// inference server captures while a learner's thread may be uploading batches).
int zs_graph_begin(void* capture, int thread_local_mode, char* error, size_t length) {
  return guarded(error, length, [&] {
    auto* c = static_cast<Capture*>(capture);
    c->side->synchronize();
    auto mode = thread_local_mode ? cudaStreamCaptureModeThreadLocal
                                  : cudaStreamCaptureModeGlobal;
    c->graph.capture_begin({0, 0}, mode);
  });
}

int zs_graph_end(void* capture, char* error, size_t length) {
  return guarded(error, length, [&] { static_cast<Capture*>(capture)->graph.capture_end(); });
}

int zs_graph_leave(void* capture, char* error, size_t length) {
  return guarded(error, length, [&] {
    auto* c = static_cast<Capture*>(capture);
    if (c->side) c->side->synchronize();
    if (c->saved) c10::cuda::setCurrentCUDAStream(*c->saved);
    c->saved.reset();
  });
}

// Runs the recorded work again on the thread's current stream, in order with what the
// thread queued before and after it.
int zs_graph_replay(void* capture, char* error, size_t length) {
  return guarded(error, length, [&] { static_cast<Capture*>(capture)->graph.replay(); });
}

}  // extern "C"
