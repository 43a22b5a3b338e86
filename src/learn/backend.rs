//! Choosing the compute device from the config.
//!
//! `cpu` is burn's `flex` backend (pure Rust, AVX-512 GEMM kernels chosen at
//! run time through the `x86-v4` feature) and is always built. `gpu` needs
//! a binary built with `--features gpu`, which adds burn's `vulkan` backend
//! (wgpu over Vulkan; it needs no LLVM or CUDA toolkit at build time, only
//! the GPU driver's Vulkan loader at run time).
//!
//! [`describe`] names the hardware a run trained on, for `meta.json`: the
//! CPU's model, family, model number and SIMD/matrix flags, or the GPU
//! adapter wgpu reports (name, PCI ids, driver) with the cooperative-matrix
//! (CMMA) configurations cubecl's runtime offers burn's matmuls.

use crate::learn::config::{DeviceKind, Precision};
use crate::learn::error::LearnError;
use burn::tensor::{Device, FloatDType};

/// Checks every kernel-selection variable (`CUBE_ORACLE_F32_KERNEL`,
/// `CUBE_ORACLE_BF16_KERNEL`, `CUBE_ORACLE_INT8_KERNEL`) when `train` or
/// `solve` starts, whether or not this run's products read it: a value
/// that names no kernel or unit, or one this CPU lacks, is refused in one
/// line naming the variable and the value, never quietly ignored.
///
/// # Errors
/// [`LearnError::Environment`] with that line.
pub fn check_kernel_variables() -> Result<(), LearnError> {
    crate::kernels::compiled::requested().map_err(LearnError::Environment)?;
    crate::kernels::gemm::Kernel::check_request().map_err(LearnError::Environment)?;
    let int8 = match std::env::var("CUBE_ORACLE_INT8_KERNEL") {
        Err(std::env::VarError::NotPresent) => return Ok(()),
        Err(std::env::VarError::NotUnicode(_)) => {
            return Err(LearnError::Environment("CUBE_ORACLE_INT8_KERNEL is not UTF-8: use amx or vector".into()));
        }
        Ok(w) => w,
    };
    match int8.as_str() {
        "vector" => Ok(()),
        "amx" if crate::kernels::compiled::int8::Unit::AmxTiles.available() => Ok(()),
        "amx" => Err(LearnError::Environment(
            "CUBE_ORACLE_INT8_KERNEL=amx: this CPU has no AMX-INT8 (or the OS did not grant the tile state)".into(),
        )),
        w => Err(LearnError::Environment(format!(
            "CUBE_ORACLE_INT8_KERNEL={:?} is not a unit: use amx or vector",
            w.chars().take(40).collect::<String>()
        ))),
    }
}

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
///
/// The CPU: the kernel family burn's CPU backend runs, the model name,
/// family and model number, the logical core count and the SIMD/matrix flags
/// of [`CPU_FLAGS`] the CPU has. The GPU: the adapter (name, vendor and
/// device ids, driver, graphics API) and the CMMA configurations the runtime
/// reports, or why the adapter could not be queried. On the GPU this opens
/// burn's default Vulkan device if nothing has yet.
#[must_use]
pub fn describe(kind: DeviceKind) -> String {
    match kind {
        DeviceKind::Cpu => {
            let cores = std::thread::available_parallelism().map_or(1, usize::from);
            let cpu = match CpuInfo::read() {
                Ok(info) => info.describe(cores),
                Err(e) => format!("CPU unknown (/proc/cpuinfo: {e}), {cores} logical cores"),
            };
            format!("cpu: burn flex ({} kernels), {cpu}", cpu_kernels())
        }
        DeviceKind::Gpu => {
            let api = format!("gpu: burn vulkan (wgpu{})", if cfg!(feature = "gpu-fusion") { ", fusion" } else { "" });
            match gpu_adapter() {
                Ok(adapter) => format!("{api}, {adapter}"),
                Err(e) => format!("{api}, adapter unknown: {e}"),
            }
        }
    }
}

/// Why the GPU adapter could not be described.
#[derive(Debug, thiserror::Error)]
enum AdapterError {
    /// A build without `--features gpu`.
    #[cfg(not(feature = "gpu"))]
    #[error("this build has no GPU backend (build with --features gpu)")]
    NotBuilt,
    /// burn's Vulkan device is not a cubecl one (it always is today).
    #[cfg(feature = "gpu")]
    #[error("burn's vulkan device is not a cubecl wgpu device")]
    NotCubecl,
    /// Vulkan lists no adapter: no loader, no driver or no GPU.
    #[cfg(feature = "gpu")]
    #[error("no Vulkan adapter ({0}; are the Vulkan loader and a GPU driver installed?)")]
    NoAdapter(String),
    /// The runtime panicked while opening the device.
    #[cfg(feature = "gpu")]
    #[error("opening the Vulkan device failed: {0}")]
    Open(String),
}

#[cfg(not(feature = "gpu"))]
fn gpu_adapter() -> Result<String, AdapterError> {
    Err(AdapterError::NotBuilt)
}

/// The adapter behind burn's default Vulkan device and the CMMA
/// configurations its runtime reports.
///
/// The device properties come from the compute client of that device (the
/// one training runs on, shared, not a second one). Driver and graphics API
/// are only in wgpu's `AdapterInfo`, which comes from listing the Vulkan
/// adapters through an instance of its own (no device is created) and picking
/// the one with the runtime's name and PCI address.
#[cfg(feature = "gpu")]
fn gpu_adapter() -> Result<String, AdapterError> {
    use burn::backend::DispatchDevice;
    use burn::tensor::wgpu::WgpuBackend;

    let device = Device::vulkan(Default::default());
    let DispatchDevice::Cube(cube) = device.as_dispatch() else {
        return Err(AdapterError::NotCubecl);
    };
    // Asks the runtime whether Vulkan has an adapter for this device, so that
    // a machine without one gets an error here rather than a panic below.
    let cube = cube.clone().on(WgpuBackend::Vulkan).map_err(|e| AdapterError::NoAdapter(e.to_string()))?;
    let props = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| cube.client().properties().clone()))
        .map_err(|panic| AdapterError::Open(panic_message(panic.as_ref())))?;

    let identity = &props.identity;
    let pci = identity.physical.as_ref().and_then(|p| p.pci_address);
    let adapters = vulkan_adapters();
    let info = adapters
        .iter()
        .filter(|a| a.name == identity.name)
        .find(|a| pci.is_none() || a.device_pci_bus_id.parse().ok() == pci)
        .or_else(|| adapters.iter().find(|a| a.name == identity.name));
    let adapter = match info {
        Some(a) => format!(
            "{} ({:?}, vendor 0x{:04x}, device 0x{:04x}{}), driver {} {}, backend {}",
            a.name,
            a.device_type,
            a.vendor,
            a.device,
            if a.device_pci_bus_id.is_empty() { String::new() } else { format!(", pci {}", a.device_pci_bus_id) },
            a.driver,
            a.driver_info,
            a.backend,
        ),
        None => format!(
            "{} ({}; driver unknown: not among {} listed Vulkan adapters), backend vulkan",
            identity.name,
            identity.fingerprint,
            adapters.len()
        ),
    };

    let matmul = &props.features.matmul;
    let cmma = group_shapes(
        matmul
            .cmma
            .iter()
            .map(|c| (format!("{}*{}->{}", c.a_type, c.b_type, c.cd_type), format!("{}x{}x{}", c.m, c.n, c.k))),
    );
    // Cube-level MMA (Vulkan's flexible-size cooperative matrices): each side
    // a multiple of its granularity up to its maximum, written `g..max`.
    let cube_mma = group_shapes(matmul.cube_mma.iter().map(|c| {
        (
            format!("{}*{}->{}", c.a_type, c.b_type, c.cd_type),
            format!(
                "{}..{}x{}..{}x{}..{}",
                c.m_granularity, c.m_max, c.n_granularity, c.n_max, c.k_granularity, c.k_max
            ),
        )
    }));
    Ok(format!("{adapter}, cmma {cmma}, cube-mma {cube_mma}"))
}

/// `(types, shape)` pairs as `types shape/shape, types shape`, in the order
/// given; `none` for none.
#[cfg(feature = "gpu")]
fn group_shapes(pairs: impl Iterator<Item = (String, String)>) -> String {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for (types, shape) in pairs {
        match groups.iter_mut().find(|(t, _)| *t == types) {
            Some((_, shapes)) => shapes.push(shape),
            None => groups.push((types, vec![shape])),
        }
    }
    if groups.is_empty() {
        return "none".to_string();
    }
    groups.iter().map(|(types, shapes)| format!("{types} {}", shapes.join("/"))).collect::<Vec<_>>().join(", ")
}

/// wgpu's description of every Vulkan adapter, listed through an instance
/// limited to Vulkan; empty where there is no Vulkan loader or driver.
#[cfg(feature = "gpu")]
fn vulkan_adapters() -> Vec<burn::tensor::wgpu::wgpu::AdapterInfo> {
    use burn::tensor::wgpu::wgpu;
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::VULKAN,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN)).iter().map(wgpu::Adapter::get_info).collect()
}

/// Runs `future` to completion on this thread (wgpu's native adapter listing
/// is ready at once; this parks the thread otherwise).
#[cfg(feature = "gpu")]
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};

    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::park();
    }
}

/// The message of a caught panic.
#[cfg(feature = "gpu")]
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_string()))
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// The `/proc/cpuinfo` flags [`describe`] reports, in this order: the ones
/// that decide which GEMM and bf16 kernels the CPU can run.
pub const CPU_FLAGS: [&str; 9] =
    ["avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni", "avx_vnni", "amx_tile", "amx_bf16", "amx_int8"];

/// The first CPU of `/proc/cpuinfo`: what [`describe`] says about the CPU.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CpuInfo {
    /// `model name`, e.g. `AMD EPYC 7B13`.
    pub model_name: Option<String>,
    /// `cpu family`, e.g. 25 for AMD Zen 3 and Zen 4, 6 for Intel cores.
    pub family: Option<u32>,
    /// `model`, the model number within the family.
    pub model: Option<u32>,
    /// The flags of [`CPU_FLAGS`] the CPU lists, in [`CPU_FLAGS`]'s order.
    pub flags: Vec<&'static str>,
}

impl CpuInfo {
    /// Parses the first processor's block of a `/proc/cpuinfo` text. Fields
    /// that are missing or do not parse are `None`.
    #[must_use]
    pub fn from_cpuinfo(text: &str) -> Self {
        let mut info = Self::default();
        for line in text.lines() {
            if line.trim().is_empty() {
                if info != Self::default() {
                    break;
                }
                continue;
            }
            let Some((key, value)) = line.split_once(':') else { continue };
            let value = value.trim();
            match key.trim() {
                "model name" => info.model_name = Some(value.to_string()),
                "cpu family" => info.family = value.parse().ok(),
                "model" => info.model = value.parse().ok(),
                "flags" => {
                    let listed: Vec<&str> = value.split_whitespace().collect();
                    info.flags = CPU_FLAGS.iter().copied().filter(|f| listed.contains(f)).collect();
                }
                _ => {}
            }
        }
        info
    }

    /// This machine's first CPU, from `/proc/cpuinfo`.
    ///
    /// # Errors
    /// The I/O error where `/proc/cpuinfo` cannot be read (not Linux).
    pub fn read() -> std::io::Result<Self> {
        std::fs::read_to_string("/proc/cpuinfo").map(|text| Self::from_cpuinfo(&text))
    }

    /// `name (family F, model M), N logical cores, flags a b`, leaving out
    /// what is unknown.
    #[must_use]
    pub fn describe(&self, cores: usize) -> String {
        let name = self.model_name.as_deref().unwrap_or("unknown CPU");
        let ids = match (self.family, self.model) {
            (Some(f), Some(m)) => format!(" (family {f}, model {m})"),
            (Some(f), None) => format!(" (family {f})"),
            (None, Some(m)) => format!(" (model {m})"),
            (None, None) => String::new(),
        };
        let flags = if self.flags.is_empty() { "none".to_string() } else { self.flags.join(" ") };
        format!("{name}{ids}, {cores} logical cores, flags {flags}")
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An AMD EPYC 7B13 (Zen 3): AVX2 and FMA, no AVX-512.
    const EPYC_ZEN3: &str = "processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 1
model name\t: AMD EPYC 7B13 64-Core Processor
stepping\t: 1
flags\t\t: fpu vme de pse tsc msr pae mce cx8 sse sse2 ssse3 fma cx16 sse4_1 sse4_2 avx f16c bmi1 avx2 bmi2 sha_ni vaes
bogomips\t: 4890.84

processor\t: 1
vendor_id\t: AuthenticAMD
cpu family\t: 99
model\t\t: 99
model name\t: second block, not read
";

    /// An Intel Xeon (Sapphire Rapids): AVX-512 with bf16 and AMX.
    const XEON_SPR: &str = "processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 143
model name\t: Intel(R) Xeon(R) Platinum 8480+
flags\t\t: fpu sse sse2 avx fma avx2 avx512f avx512dq avx512cd avx512bw avx512vl avx512_bf16 avx512_fp16 amx_bf16 amx_tile
";

    #[test]
    fn parses_an_amd_epyc_zen3() {
        let info = CpuInfo::from_cpuinfo(EPYC_ZEN3);
        assert_eq!(info.model_name.as_deref(), Some("AMD EPYC 7B13 64-Core Processor"));
        assert_eq!(info.family, Some(25));
        assert_eq!(info.model, Some(1));
        assert_eq!(info.flags, ["avx2", "fma"]);
        assert_eq!(
            info.describe(2),
            "AMD EPYC 7B13 64-Core Processor (family 25, model 1), 2 logical cores, flags avx2 fma"
        );
    }

    #[test]
    fn parses_an_intel_xeon_with_amx() {
        let info = CpuInfo::from_cpuinfo(XEON_SPR);
        assert_eq!(info.model_name.as_deref(), Some("Intel(R) Xeon(R) Platinum 8480+"));
        assert_eq!(info.family, Some(6));
        assert_eq!(info.model, Some(143));
        assert_eq!(info.flags, ["avx2", "fma", "avx512f", "avx512_bf16", "amx_tile", "amx_bf16"]);
    }

    #[test]
    fn missing_fields_are_left_out() {
        let info = CpuInfo::from_cpuinfo("processor\t: 0\nflags\t: sse2\n");
        assert_eq!(info, CpuInfo::default());
        assert_eq!(info.describe(4), "unknown CPU, 4 logical cores, flags none");
    }

    /// The description of this machine's CPU carries the family and model
    /// numbers `/proc/cpuinfo` lists, read here without the parser.
    #[test]
    fn describes_this_cpu() {
        let line = describe(DeviceKind::Cpu);
        println!("{line}");
        assert!(line.starts_with("cpu: burn flex ("), "{line}");
        assert!(!line.contains('\n'), "{line}");
        if !cfg!(target_os = "linux") {
            return;
        }
        let text = std::fs::read_to_string("/proc/cpuinfo").expect("/proc/cpuinfo is readable on Linux");
        let field = |key: &str| {
            text.lines()
                .filter_map(|l| l.split_once(':'))
                .find(|(k, _)| k.trim() == key)
                .map(|(_, v)| v.trim().to_string())
        };
        match (field("cpu family"), field("model")) {
            (Some(family), Some(model)) => {
                assert!(line.contains(&format!("(family {family}, model {model})")), "{line}");
            }
            // An ARM `/proc/cpuinfo` has neither field; an x86 one has both.
            _ if cfg!(target_arch = "x86_64") => panic!("no cpu family or model in /proc/cpuinfo: {line}"),
            _ => {}
        }
    }

    /// Without a GPU build, or without a Vulkan adapter, the GPU description
    /// says why the adapter is unknown instead of panicking.
    #[test]
    fn describes_the_gpu_without_panicking() {
        let line = describe(DeviceKind::Gpu);
        println!("{line}");
        assert!(line.starts_with("gpu: burn vulkan (wgpu"), "{line}");
        assert!(!line.contains('\n'), "{line}");
    }
}
