//! CUDA graphs: the kernels of one forward pass recorded once and replayed with a single
//! launch, as lc0 does per batch size (+5-18% there). A network as small as the shipped
//! ones is bound by kernel launches on a GPU, not by arithmetic, so replaying its few
//! hundred launches as one is where the device's time goes further.
//!
//! tch has no graph API: libtorch's `at::cuda::CUDAGraph` is reached through a shim,
//! cpp/cuda_graph.cpp, built apart by scripts/build-cuda-graphs.sh into
//! `libzerosum_cuda_graph.so` and opened here at run time, so that the binary starts on a
//! machine without CUDA. It is looked for in `ZEROSUM_CUDA_GRAPHS` (a path), else beside
//! the running executable.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::OnceLock;

use tch::{Device, Kind, Tensor};

use crate::error::{panic_line, NnError};
use crate::families::Outputs;

/// The shim's file name, beside the executable.
pub const GRAPH_LIBRARY: &str = "libzerosum_cuda_graph.so";
/// The variable that names the shim's path instead.
pub const GRAPH_LIBRARY_VAR: &str = "ZEROSUM_CUDA_GRAPHS";

type NewFn = unsafe extern "C" fn(*mut *mut c_void, *mut c_char, usize) -> c_int;
type FreeFn = unsafe extern "C" fn(*mut c_void);
type WithIntFn = unsafe extern "C" fn(*mut c_void, c_int, *mut c_char, usize) -> c_int;
type PlainFn = unsafe extern "C" fn(*mut c_void, *mut c_char, usize) -> c_int;

/// The shim's functions (cpp/cuda_graph.cpp says what each does).
struct Shim {
    new: NewFn,
    free: FreeFn,
    enter: WithIntFn,
    begin: WithIntFn,
    end: PlainFn,
    leave: PlainFn,
    replay: PlainFn,
}

/// The shim, opened once; or why there is none.
fn shim() -> Result<&'static Shim, &'static str> {
    static SHIM: OnceLock<Result<Shim, String>> = OnceLock::new();
    SHIM.get_or_init(open_shim).as_ref().map_err(String::as_str)
}

/// Whether CUDA graphs can be recorded by this process (the shim is there and loads);
/// `Err` says why not.
pub fn cuda_graphs_available() -> Result<(), String> {
    crate::cuda::load_backend();
    shim().map(|_| ()).map_err(str::to_string)
}

/// Refuses `KEY = "on"` in one line where this process cannot record graphs.
pub(crate) fn require_cuda_graphs(key: &str) -> Result<(), NnError> {
    cuda_graphs_available()
        .map_err(|why| NnError::BadConfig(format!("{key} = \"on\" cannot be met: {why}")))
}

/// What `cuda_graphs = "auto"` chooses on `device`: graphs on CUDA where the shim is there
/// (docs/results.md, "On a GPU", measures them against the passes run as they are).
pub fn cuda_graphs_auto(device: Device) -> bool {
    device.is_cuda() && cuda_graphs_available().is_ok()
}

/// Whether a `cuda_graphs` setting (`auto`, `on` or `off`) records graphs on `device`; `on`
/// does on CUDA even without the shim, so that building the network then fails and says why.
pub fn cuda_graphs_setting(setting: &str, device: Device) -> bool {
    match setting {
        "on" => device.is_cuda(),
        "auto" => cuda_graphs_auto(device),
        _ => false,
    }
}

fn library_path() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os(GRAPH_LIBRARY_VAR) {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
    let beside = exe.with_file_name(GRAPH_LIBRARY);
    if beside.exists() {
        return Ok(beside);
    }
    Err(format!(
        "no {GRAPH_LIBRARY} beside {} (scripts/build-cuda-graphs.sh builds it; or name it in {GRAPH_LIBRARY_VAR})",
        exe.display()
    ))
}

fn open_shim() -> Result<Shim, String> {
    let path = library_path()?;
    let name = CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| format!("{} has a NUL in its path", path.display()))?;
    // SAFETY: `name` is a NUL-terminated path; the library's initialisers are libtorch's
    // own, already run for the libtorch this process loaded. The handle is never closed.
    let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if handle.is_null() {
        return Err(format!(
            "{} did not load: {}",
            path.display(),
            crate::cuda::dl_error()
        ));
    }
    let symbol = |name: &CStr| {
        // SAFETY: a lookup in a library that stays open; the caller gives it its type.
        let found = unsafe { libc::dlsym(handle, name.as_ptr()) };
        if found.is_null() {
            Err(format!(
                "{} has no {}",
                path.display(),
                name.to_string_lossy()
            ))
        } else {
            Ok(found)
        }
    };
    // SAFETY: each symbol is the shim's extern "C" function of exactly this signature.
    unsafe {
        Ok(Shim {
            new: std::mem::transmute::<*mut c_void, NewFn>(symbol(c"zs_graph_new")?),
            free: std::mem::transmute::<*mut c_void, FreeFn>(symbol(c"zs_graph_free")?),
            enter: std::mem::transmute::<*mut c_void, WithIntFn>(symbol(c"zs_graph_enter")?),
            begin: std::mem::transmute::<*mut c_void, WithIntFn>(symbol(c"zs_graph_begin")?),
            end: std::mem::transmute::<*mut c_void, PlainFn>(symbol(c"zs_graph_end")?),
            leave: std::mem::transmute::<*mut c_void, PlainFn>(symbol(c"zs_graph_leave")?),
            replay: std::mem::transmute::<*mut c_void, PlainFn>(symbol(c"zs_graph_replay")?),
        })
    }
}

/// Calls a shim function with room for its message; its message as the error.
fn checked(call: impl FnOnce(*mut c_char, usize) -> c_int) -> Result<(), String> {
    let mut message = [0 as c_char; 512];
    if call(message.as_mut_ptr(), message.len()) == 0 {
        return Ok(());
    }
    // SAFETY: the shim wrote a NUL-terminated message of at most the buffer's length.
    let text = unsafe { CStr::from_ptr(message.as_ptr()) };
    let text = text.to_string_lossy();
    Err(text.lines().next().unwrap_or("").to_string())
}

/// `work`'s result, or its panic's first line (libtorch's errors reach Rust as panics).
fn guarded<R>(work: impl FnOnce() -> R) -> Result<R, String> {
    catch_unwind(AssertUnwindSafe(work)).map_err(|panic| panic_line(&*panic).to_string())
}

/// Work on one CUDA device, recorded once and replayed.
pub(crate) struct CudaGraph {
    handle: *mut c_void,
    shim: &'static Shim,
}

// SAFETY: the graph is libtorch's object, used from one thread at a time (`&mut` or a
// lock), which CUDA allows from any thread.
unsafe impl Send for CudaGraph {}

impl Drop for CudaGraph {
    fn drop(&mut self) {
        // SAFETY: the handle came from zs_graph_new and is freed once.
        unsafe { (self.shim.free)(self.handle) }
    }
}

impl CudaGraph {
    /// Records what `work` queues on `device`, after two unrecorded runs of `warm` (libtorch
    /// creates its handles and workspaces on first use, which a recording must not do), each
    /// given `state`. Returns the graph and what the recorded run returned: its tensors live
    /// in the graph's own memory, rewritten by each replay.
    pub(crate) fn record<S, R>(
        device: Device,
        state: &mut S,
        mut warm: impl FnMut(&mut S),
        mut work: impl FnMut(&mut S) -> R,
    ) -> Result<(CudaGraph, R), NnError> {
        let failed = |why: String| NnError::Torch(format!("recording a CUDA graph: {why}"));
        let shim = shim().map_err(|why| failed(why.to_string()))?;
        let Device::Cuda(index) = device else {
            return Err(failed(format!("{device:?} is not a CUDA device")));
        };
        let mut handle = std::ptr::null_mut();
        // SAFETY: the shim's functions with their own handle and a message buffer.
        checked(|e, l| unsafe { (shim.new)(&mut handle, e, l) }).map_err(failed)?;
        let graph = CudaGraph { handle, shim };
        checked(|e, l| unsafe { (shim.enter)(handle, index as c_int, e, l) }).map_err(failed)?;
        let recorded = (|| {
            for _ in 0..2 {
                guarded(|| warm(state))?;
            }
            checked(|e, l| unsafe { (shim.begin)(handle, 1, e, l) })?;
            let result = guarded(|| work(state));
            // The capture ends whatever the work did, or the stream stays capturing.
            let ended = checked(|e, l| unsafe { (shim.end)(handle, e, l) });
            let result = result?;
            ended.map(|()| result)
        })();
        let left = checked(|e, l| unsafe { (shim.leave)(handle, e, l) });
        let result = recorded.map_err(failed)?;
        left.map_err(failed)?;
        Ok((graph, result))
    }

    /// Runs the recorded work again, on the calling thread's current stream.
    pub(crate) fn replay(&self) -> Result<(), NnError> {
        // SAFETY: the shim's function with this graph's handle.
        checked(|e, l| unsafe { (self.shim.replay)(self.handle, e, l) })
            .map_err(|why| NnError::Torch(format!("replaying a CUDA graph: {why}")))
    }
}

/// The largest batch recorded: larger ones run as they are.
const LARGEST_RECORDED: usize = 4096;

/// One recorded forward pass: its input and outputs, in the graph's memory.
struct Recorded {
    batch: usize,
    input: Tensor,
    policy: Tensor,
    value: Tensor,
    graph: CudaGraph,
}

/// A network's forward passes recorded per batch size (powers of two; a batch runs in the
/// smallest recorded one that holds it, its other rows left as they were), each recorded
/// the first time a batch needs it.
#[derive(Default)]
pub(crate) struct GraphedForward {
    recorded: Vec<Recorded>,
    /// Why recording failed, once it has: from then on every batch runs as it is.
    failed: Option<String>,
}

impl GraphedForward {
    /// Inference on `batch` rows of `obs` through a recorded forward pass, writing `logits`
    /// (`num_actions` a row) and `values` as [`crate::Model::predict`]; `false` (nothing
    /// written) where this batch is not to be replayed: too large, or recording failed.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn predict(
        &mut self,
        forward: impl Fn(&Tensor) -> Outputs,
        input_shape: (Device, Kind, usize),
        num_actions: usize,
        obs: &[f32],
        batch: usize,
        logits: &mut [f32],
        values: &mut [f32],
    ) -> bool {
        if self.failed.is_some() || batch > LARGEST_RECORDED || batch == 0 {
            return false;
        }
        let size = batch.next_power_of_two();
        let at = match self.recorded.iter().position(|r| r.batch == size) {
            Some(at) => at,
            None => match record_forward(&forward, input_shape, size) {
                Ok(recorded) => {
                    self.recorded.push(recorded);
                    self.recorded.len() - 1
                }
                Err(error) => {
                    eprintln!("warning: {error}; the network runs without CUDA graphs");
                    self.failed = Some(error.to_string());
                    return false;
                }
            },
        };
        let recorded = &self.recorded[at];
        let rows = batch as i64;
        let obs_len = input_shape.2;
        let host = Tensor::from_slice(&obs[..batch * obs_len]).view([rows, -1]);
        recorded.input.narrow(0, 0, rows).copy_(&host);
        if let Err(error) = recorded.graph.replay() {
            eprintln!("warning: {error}; the network runs without CUDA graphs");
            self.failed = Some(error.to_string());
            return false;
        }
        let policy = recorded.policy.narrow(0, 0, rows).to_kind(Kind::Float);
        let value = recorded.value.narrow(0, 0, rows).to_kind(Kind::Float);
        policy
            .to_device(Device::Cpu)
            .copy_data(logits, batch * num_actions);
        value.to_device(Device::Cpu).copy_data(values, batch);
        true
    }
}

/// Records `forward` on an input of `size` rows (zeros until the first batch is copied in).
fn record_forward(
    forward: &impl Fn(&Tensor) -> Outputs,
    (device, kind, obs_len): (Device, Kind, usize),
    size: usize,
) -> Result<Recorded, NnError> {
    let input = Tensor::zeros([size as i64, obs_len as i64], (kind, device));
    let warm = |_: &mut ()| drop(forward(&input));
    let (graph, (policy, value)) = CudaGraph::record(device, &mut (), warm, |_| {
        let Outputs { policy, value, .. } = forward(&input);
        (policy, value)
    })?;
    Ok(Recorded {
        batch: size,
        input,
        policy,
        value,
        graph,
    })
}
