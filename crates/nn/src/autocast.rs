//! Mixed precision for training: libtorch's autocast, on the CPU as on CUDA.
//!
//! Inside an [`Autocast`] the convolutions and matrix products run in bf16 on weights kept
//! in f32 (autocast casts them, and caches each cast until the outermost guard ends), and
//! the gradients reach the f32 weights as f32: the optimizer and the checkpoints never see
//! a half-precision number. The shim in `cpp/autocast.cpp` does the switching, because
//! tch 0.26 can switch only CUDA's autocast and cannot choose its dtype.

use std::ffi::c_int;
use std::marker::PhantomData;

use tch::Device;

use crate::error::NnError;
use crate::model::Precision;

extern "C" {
    fn zerosum_autocast_available() -> bool;
    fn zerosum_autocast_begin(
        cuda: bool,
        bf16: bool,
        was_enabled: *mut bool,
        was_dtype: *mut c_int,
    ) -> c_int;
    fn zerosum_autocast_end(cuda: bool, was_enabled: bool, was_dtype: c_int);
}

/// Whether this build of zerosum can train in mixed precision: its libtorch has per-device
/// autocast (PyTorch 2.4 and later).
pub fn mixed_precision_available() -> bool {
    // SAFETY: returns a constant.
    unsafe { zerosum_autocast_available() }
}

/// Autocast switched on for one device kind on this thread until dropped, when what it
/// replaced comes back. Not `Send`: libtorch keeps autocast's state per thread.
pub(crate) struct Autocast {
    cuda: bool,
    was_enabled: bool,
    was_dtype: c_int,
    _this_thread: PhantomData<*const ()>,
}

impl Autocast {
    /// Computes in `precision` on `device` until the guard drops; `None` for fp32, which
    /// needs no autocast.
    pub(crate) fn begin(device: Device, precision: Precision) -> Result<Option<Autocast>, NnError> {
        let bf16 = match precision {
            Precision::Fp32 => return Ok(None),
            Precision::Bf16 => true,
            Precision::Fp16 => false,
        };
        let cuda = device.is_cuda();
        let (mut was_enabled, mut was_dtype) = (false, 0);
        // SAFETY: the shim writes the two values through the pointers it is given, which
        // point at the locals above, and catches every C++ exception.
        let status =
            unsafe { zerosum_autocast_begin(cuda, bf16, &mut was_enabled, &mut was_dtype) };
        if status != 0 {
            let why = if mixed_precision_available() {
                "libtorch refused it"
            } else {
                "this libtorch has no per-device autocast (PyTorch 2.4 or later)"
            };
            return Err(NnError::BadConfig(format!(
                "cannot train in {} on {device:?}: {why}; set learner.precision = \"fp32\"",
                precision.name()
            )));
        }
        Ok(Some(Autocast {
            cuda,
            was_enabled,
            was_dtype,
            _this_thread: PhantomData,
        }))
    }
}

impl Drop for Autocast {
    fn drop(&mut self) {
        // SAFETY: puts back the state `begin` read on this same thread (the guard is not Send).
        unsafe { zerosum_autocast_end(self.cuda, self.was_enabled, self.was_dtype) }
    }
}
