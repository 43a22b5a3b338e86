//! Choosing the compute device from the config.
//!
//! `cpu` is burn's `flex` backend (pure Rust, AVX-512 GEMM kernels chosen at
//! run time through the `x86-v4` feature) and is always built. `gpu` needs
//! a binary built with `--features gpu`, which adds burn's `vulkan` backend
//! (wgpu over Vulkan; it needs no LLVM or CUDA toolkit at build time, only
//! the GPU driver's Vulkan loader at run time).

use crate::learn::config::{DeviceKind, Precision};
use crate::learn::error::LearnError;
use burn::tensor::{Device, FloatDType};

/// The device for `kind`, or an error explaining how to get it.
///
/// # Errors
/// [`LearnError::NoGpu`] for the GPU in a CPU-only build.
pub fn device(kind: DeviceKind) -> Result<Device, LearnError> {
    match kind {
        DeviceKind::Cpu => Ok(Device::flex()),
        DeviceKind::Gpu => gpu(),
    }
}

/// The device for `kind` with its default float type set to `precision`.
///
/// The float type is fixed per device for the whole process, so this must
/// run before the first tensor on that device is made; asking for a float
/// type other than the one already fixed is an error.
///
/// # Errors
/// [`LearnError::Precision`] for a float type the backend lacks.
pub fn device_with(kind: DeviceKind, precision: Precision) -> Result<Device, LearnError> {
    let mut dev = device(kind)?;
    let dtype = match precision {
        Precision::F32 => FloatDType::F32,
        Precision::Flex32 => FloatDType::Flex32,
        Precision::F16 => FloatDType::F16,
        Precision::Bf16 => FloatDType::BF16,
    };
    if dev.settings().float_dtype == dtype {
        return Ok(dev);
    }
    dev.configure(dtype).map_err(|_| LearnError::Precision { precision: precision.name(), device: kind.name() })?;
    Ok(dev)
}

#[cfg(feature = "gpu")]
fn gpu() -> Result<Device, LearnError> {
    Ok(Device::vulkan(Default::default()))
}

#[cfg(not(feature = "gpu"))]
fn gpu() -> Result<Device, LearnError> {
    Err(LearnError::NoGpu)
}

/// A one-line description of the device for logs and `meta.json`.
#[must_use]
pub fn describe(kind: DeviceKind) -> String {
    match kind {
        DeviceKind::Cpu => format!("cpu: burn flex ({} kernels), {}", cpu_kernels(), cpu_model()),
        DeviceKind::Gpu => {
            format!("gpu: burn vulkan (wgpu{}), device 0", if cfg!(feature = "gpu-fusion") { ", fusion" } else { "" })
        }
    }
}

/// The GEMM kernel family burn's CPU backend dispatches to on this machine.
/// The build enables the AVX-512 (`x86-v4`) kernels, but the choice between
/// them, the AVX2 (`x86-v3`) ones and the portable ones is made at run time
/// from the CPU's features, so the label names what actually runs.
#[must_use]
pub fn cpu_kernels() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return "x86-v4 (AVX-512)";
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            return "x86-v3 (AVX2)";
        }
    }
    "portable"
}

/// The CPU model name and logical core count, from `/proc/cpuinfo`.
#[must_use]
pub fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let name = info
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map_or("unknown CPU".to_string(), |s| s.trim().to_string());
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    format!("{name}, {cores} logical cores")
}

/// Keeps freed tensor buffers in the process instead of returning them to
/// the kernel after every operation.
///
/// glibc serves allocations above 128 KiB with `mmap` and unmaps them on
/// free, so each training step would page-fault and zero its activation
/// buffers afresh (a few per cent of a step in profiles). Raising the mmap
/// and trim thresholds to glibc's maximum (32 MiB) lets `malloc` reuse them.
pub fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes allocator tuning parameters; it is called
    // before the compute threads start allocating.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
    }
}
