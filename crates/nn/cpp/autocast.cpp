// libtorch's autocast for the CPU and CUDA alike. tch 0.26 switches only CUDA's (through a
// deprecated call) and never sets the dtype, so training in bf16 on a CPU needs these few
// lines against libtorch's own headers (built by crates/nn/build.rs). A libtorch older than
// PyTorch 2.4 lacks the per-device calls: build.rs then builds it with
// ZEROSUM_WITHOUT_AUTOCAST, and mixed precision is refused.
#ifndef ZEROSUM_WITHOUT_AUTOCAST
#include <ATen/autocast_mode.h>
#endif

extern "C" {

#ifndef ZEROSUM_WITHOUT_AUTOCAST

bool zerosum_autocast_available() { return true; }

// Turns autocast on for the CPU or CUDA, computing in bf16 (or fp16), and writes what it
// replaces into was_enabled and was_dtype. Returns 0, or -1 where libtorch refused.
int zerosum_autocast_begin(bool cuda, bool bf16, bool* was_enabled, int* was_dtype) {
  try {
    auto device = cuda ? c10::DeviceType::CUDA : c10::DeviceType::CPU;
    *was_enabled = at::autocast::is_autocast_enabled(device);
    *was_dtype = static_cast<int>(at::autocast::get_autocast_dtype(device));
    at::autocast::set_autocast_dtype(device, bf16 ? at::kBFloat16 : at::kHalf);
    at::autocast::set_autocast_enabled(device, true);
    at::autocast::increment_nesting();
    return 0;
  } catch (...) {
    return -1;
  }
}

// Puts back what zerosum_autocast_begin replaced; the outermost end drops the casts of the
// weights that autocast cached, which the next optimizer step makes stale.
void zerosum_autocast_end(bool cuda, bool was_enabled, int was_dtype) {
  try {
    auto device = cuda ? c10::DeviceType::CUDA : c10::DeviceType::CPU;
    if (at::autocast::decrement_nesting() == 0) {
      at::autocast::clear_cache();
    }
    at::autocast::set_autocast_enabled(device, was_enabled);
    at::autocast::set_autocast_dtype(device, static_cast<at::ScalarType>(was_dtype));
  } catch (...) {
  }
}

#else

bool zerosum_autocast_available() { return false; }

int zerosum_autocast_begin(bool, bool, bool*, int*) { return -1; }

void zerosum_autocast_end(bool, bool, int) {}

#endif
}
