//! Finding and opening a Vulkan device: the loader is loaded at run time (no link-time
//! dependency), devices are ranked by type, and the chosen one is opened with the
//! features kernels use. With validation on (synchronization validation included), every
//! layer message is recorded and turns the next step into a failure.

use std::ffi::{CStr, c_void};

use ash::vk;
use parking_lot::Mutex;

use crate::exec::DeviceKind;
use crate::ir::{Error, ErrorKind, Result};

/// Which devices may be opened.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Want {
    /// Any device, best first (`SLUICE_BACKEND=vulkan`).
    Any,
    /// Only discrete or integrated GPUs (`auto`: a CPU-type device would lose to the
    /// native CPU executor).
    Gpu,
}

pub struct Options {
    pub want: Want,
    pub no_f64: bool,
    /// Pretend the device has no 64-bit buffer atomics (`SLUICE_VULKAN_NO_INT64_ATOMICS`).
    pub no_int64_atomics: bool,
    /// Storage-buffer descriptors a shader may use, when lower than the device's limit
    /// (`SLUICE_VULKAN_MAX_BINDINGS`, for testing the splitting of large kernels).
    pub max_bindings: Option<u32>,
    /// Workgroups a dispatch may have along x and along y, when lower than the device's
    /// limits (`SLUICE_VULKAN_MAX_GROUPS`, for testing kernels that loop over many points).
    pub max_groups: Option<u32>,
    /// Submit each step on its own (`SLUICE_VULKAN_SUBMIT_PER_STEP`, for comparison).
    pub submit_per_step: bool,
    /// Generated kernels only, not the hand-written ones (`SLUICE_VULKAN_NO_HANDWRITTEN`).
    pub no_handwritten: bool,
    /// A blocking read copies a result back in a submission of its own, not in the one
    /// computing it (`SLUICE_VULKAN_NO_READ_BACK`, for comparison).
    pub no_read_back: bool,
    /// Long axes of few rows reduce in the tree form on every device, not only GPUs
    /// (`SLUICE_VULKAN_AXIS_TREE`, for tests).
    pub axis_tree: bool,
    /// Sorts and searches run on every device, not only GPUs (`SLUICE_VULKAN_DEVICE_SORT`,
    /// for tests).
    pub device_sort: bool,
    /// Small factorizations and solves run on every device, not only GPUs
    /// (`SLUICE_VULKAN_DEVICE_FACTOR`, for tests).
    pub device_factor: bool,
    /// Every scan along an axis takes the blocked form where it fits, on every device
    /// (`SLUICE_VULKAN_BLOCKED_SCAN`, for tests).
    pub blocked_scan: bool,
    pub validation: bool,
    /// Path of the loader library (default: the system's `libvulkan.so.1`).
    pub loader: Option<String>,
    /// Where compiled programs are kept between runs (`None`: only in memory).
    pub cache_dir: Option<std::path::PathBuf>,
    /// Most bytes of arrays kept in device memory.
    pub device_memory: usize,
    /// Most compute pipelines kept in memory (`SLUICE_PIPELINE_CACHE_ENTRIES`).
    pub pipeline_cache_entries: usize,
}

/// What the chosen device can do that kernels depend on.
#[derive(Clone, Debug)]
pub struct Caps {
    pub name: String,
    pub kind: DeviceKind,
    pub float64: bool,
    /// 64-bit atomics on storage buffers (scatter of 8-byte elements by add/min/max).
    pub int64_atomics: bool,
    pub max_bindings: u32,
    pub max_groups_x: u32,
    pub max_groups_y: u32,
    /// Bytes per bound range of a large array (a power of two within the range limit).
    pub chunk_bytes: u64,
    /// Whether arrays of storage buffers may be indexed dynamically.
    pub chunked_arrays: bool,
    /// Bytes of shared memory a workgroup may declare (`maxComputeSharedMemorySize`).
    pub max_shared_bytes: u32,
    /// Invocations a workgroup may have (`maxComputeWorkGroupInvocations`, capped by the
    /// first dimension's size limit).
    pub max_invocations: u32,
    /// Nanoseconds per timestamp tick and the mask of valid bits, when the compute queue
    /// writes timestamps (profiling measures device time with them).
    pub timestamps: Option<(f64, u64)>,
    /// Compute shaders may shuffle within a subgroup (`subgroupShuffleDown`).
    pub subgroup_shuffle: bool,
    /// Names the device and driver, for the on-disk program cache.
    pub cache_key: String,
}

/// Validation-layer messages not yet reported.
pub type Messages = Mutex<Vec<String>>;

pub struct Context {
    _entry: ash::Entry,
    pub instance: ash::Instance,
    pub physical: vk::PhysicalDevice,
    pub device: ash::Device,
    pub queue: Mutex<vk::Queue>,
    pub queue_family: u32,
    pub caps: Caps,
    debug: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT, Box<Messages>)>,
}

fn kind_of(t: vk::PhysicalDeviceType) -> DeviceKind {
    match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => DeviceKind::DiscreteGpu,
        vk::PhysicalDeviceType::INTEGRATED_GPU => DeviceKind::IntegratedGpu,
        vk::PhysicalDeviceType::VIRTUAL_GPU => DeviceKind::VirtualGpu,
        vk::PhysicalDeviceType::CPU => DeviceKind::VulkanCpu,
        _ => DeviceKind::Other,
    }
}

/// Lower is better.
fn rank(k: DeviceKind) -> u32 {
    match k {
        DeviceKind::DiscreteGpu => 0,
        DeviceKind::IntegratedGpu => 1,
        DeviceKind::VirtualGpu => 2,
        DeviceKind::Other => 3,
        DeviceKind::VulkanCpu => 4,
        DeviceKind::Host => 5,
    }
}

fn unsupported(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::NotSupported, msg)
}

fn vk_err(what: &str, e: vk::Result) -> Error {
    let kind = match e {
        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY | vk::Result::ERROR_OUT_OF_HOST_MEMORY => ErrorKind::OutOfMemory,
        _ => ErrorKind::Internal,
    };
    Error::new(kind, format!("Vulkan: {what} failed ({e:?})"))
}

pub(crate) fn check(what: &str, r: std::result::Result<(), vk::Result>) -> Result<()> {
    r.map_err(|e| vk_err(what, e))
}

pub(crate) fn checked<T>(what: &str, r: std::result::Result<T, vk::Result>) -> Result<T> {
    r.map_err(|e| vk_err(what, e))
}

/// A candidate device and why it can or cannot run kernels.
struct Candidate {
    physical: vk::PhysicalDevice,
    name: String,
    kind: DeviceKind,
    props: vk::PhysicalDeviceProperties,
    float64: bool,
    int64_atomics: bool,
    dynamic_indexing: bool,
    subgroup_shuffle: bool,
    queue_family: u32,
    timestamp_bits: u32,
}

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the layer passes valid data; `user` is the boxed message list, which lives
    // until the messenger is destroyed.
    unsafe {
        let text = if data.is_null() || (*data).p_message.is_null() {
            "(no message)".to_string()
        } else {
            CStr::from_ptr((*data).p_message).to_string_lossy().into_owned()
        };
        let messages = &*(user as *const Messages);
        messages.lock().push(format!("{severity:?}: {text}"));
    }
    vk::FALSE
}

impl Context {
    pub fn open(opts: &Options) -> Result<Context> {
        // SAFETY: loading the system's Vulkan loader runs its initialisers; it is the
        // documented way to use Vulkan without linking it.
        let entry = unsafe {
            match &opts.loader {
                Some(path) => ash::Entry::load_from(path),
                None => ash::Entry::load(),
            }
        };
        let name = opts.loader.as_deref().unwrap_or("libvulkan.so.1");
        let entry = entry.map_err(|e| unsupported(format!("the Vulkan loader ({name}) could not be loaded: {e}")))?;
        let app = vk::ApplicationInfo::default()
            .application_name(c"sluice")
            .engine_name(c"sluice")
            .api_version(vk::API_VERSION_1_2);
        let mut layers: Vec<*const i8> = Vec::new();
        let mut exts: Vec<*const i8> = Vec::new();
        let layer = c"VK_LAYER_KHRONOS_validation";
        if opts.validation {
            // SAFETY: plain queries on a loaded entry.
            let available = unsafe { entry.enumerate_instance_layer_properties() }.unwrap_or_default();
            if !available.iter().any(|l| l.layer_name_as_c_str().is_ok_and(|n| n == layer)) {
                return Err(unsupported(
                    "SLUICE_VULKAN_VALIDATION is on but the validation layer is not installed \
                     (Debian: vulkan-validationlayers)",
                ));
            }
            layers.push(layer.as_ptr());
            exts.push(ash::ext::debug_utils::NAME.as_ptr());
            exts.push(ash::ext::validation_features::NAME.as_ptr());
        }
        // Synchronization validation too: a missing barrier is a race the results may not show.
        let checks = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut features = vk::ValidationFeaturesEXT::default().enabled_validation_features(&checks);
        let mut info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&exts);
        if opts.validation {
            info = info.push_next(&mut features);
        }
        // SAFETY: the create info and the strings it points to outlive the call.
        let instance = unsafe { entry.create_instance(&info, None) }.map_err(|e| match e {
            vk::Result::ERROR_INCOMPATIBLE_DRIVER => {
                unsupported("the Vulkan loader found no driver (ERROR_INCOMPATIBLE_DRIVER)")
            }
            e => unsupported(format!("no Vulkan instance could be created ({e:?})")),
        })?;
        let debug = if opts.validation {
            let messages: Box<Messages> = Box::new(Mutex::new(Vec::new()));
            let du = ash::ext::debug_utils::Instance::new(&entry, &instance);
            let info = vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(
                    vk::DebugUtilsMessageSeverityFlagsEXT::WARNING | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
                )
                .message_type(
                    vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
                )
                .pfn_user_callback(Some(on_message))
                .user_data(&*messages as *const Messages as *mut c_void);
            // SAFETY: `messages` is kept with the messenger and dropped after it.
            let m = unsafe { du.create_debug_utils_messenger(&info, None) };
            match m {
                Ok(m) => Some((du, m, messages)),
                Err(e) => {
                    unsafe { instance.destroy_instance(None) };
                    return Err(vk_err("creating the debug messenger", e));
                }
            }
        } else {
            None
        };
        let result = Self::choose(&instance, opts).and_then(|c| Self::create_device(&instance, c, opts));
        match result {
            Ok((device, queue, cand, caps)) => Ok(Context {
                _entry: entry,
                instance,
                physical: cand.physical,
                device,
                queue: Mutex::new(queue),
                queue_family: cand.queue_family,
                caps,
                debug,
            }),
            Err(e) => {
                // SAFETY: nothing created from the instance is alive any more.
                unsafe {
                    if let Some((du, m, _)) = &debug {
                        du.destroy_debug_utils_messenger(*m, None);
                    }
                    instance.destroy_instance(None);
                }
                Err(e)
            }
        }
    }

    fn candidates(instance: &ash::Instance) -> Result<Vec<std::result::Result<Candidate, String>>> {
        // SAFETY: queries on a live instance.
        let physicals = unsafe { instance.enumerate_physical_devices() }
            .map_err(|e| unsupported(format!("Vulkan devices could not be listed ({e:?})")))?;
        Ok(physicals
            .into_iter()
            .map(|p| {
                // SAFETY: `p` comes from this instance.
                let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
                let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut subgroup);
                unsafe { instance.get_physical_device_properties2(p, &mut props2) };
                let props = props2.properties;
                let subgroup_shuffle = subgroup.supported_stages.contains(vk::ShaderStageFlags::COMPUTE)
                    && subgroup.supported_operations.contains(vk::SubgroupFeatureFlags::SHUFFLE_RELATIVE)
                    && (1..=128).contains(&subgroup.subgroup_size);
                let name = props.device_name_as_c_str().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                if props.api_version < vk::API_VERSION_1_2 {
                    return Err(format!("{name}: Vulkan 1.2 is needed"));
                }
                let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
                let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut f12);
                unsafe { instance.get_physical_device_features2(p, &mut f2) };
                let f = f2.features;
                if f.shader_int64 == vk::FALSE {
                    return Err(format!("{name}: shaderInt64 is needed"));
                }
                if f12.storage_buffer8_bit_access == vk::FALSE {
                    return Err(format!("{name}: storageBuffer8BitAccess is needed"));
                }
                let families = unsafe { instance.get_physical_device_queue_family_properties(p) };
                let Some(queue_family) = families.iter().position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
                else {
                    return Err(format!("{name}: no compute queue"));
                };
                Ok(Candidate {
                    physical: p,
                    kind: kind_of(props.device_type),
                    name,
                    props,
                    float64: f.shader_float64 == vk::TRUE,
                    int64_atomics: f12.shader_buffer_int64_atomics == vk::TRUE,
                    dynamic_indexing: f.shader_storage_buffer_array_dynamic_indexing == vk::TRUE,
                    subgroup_shuffle,
                    queue_family: queue_family as u32,
                    timestamp_bits: families[queue_family].timestamp_valid_bits,
                })
            })
            .collect())
    }

    fn choose(instance: &ash::Instance, opts: &Options) -> Result<Candidate> {
        let all = Self::candidates(instance)?;
        if all.is_empty() {
            return Err(unsupported("the Vulkan loader found no device"));
        }
        let mut refused: Vec<String> = all.iter().filter_map(|c| c.as_ref().err().cloned()).collect();
        let mut usable: Vec<Candidate> = all.into_iter().filter_map(|c| c.ok()).collect();
        usable.sort_by_key(|c| rank(c.kind));
        if opts.want == Want::Gpu {
            for c in usable.iter().filter(|c| !matches!(c.kind, DeviceKind::DiscreteGpu | DeviceKind::IntegratedGpu)) {
                refused.push(format!("{} is a {} device, not a GPU", c.name, c.kind.name()));
            }
            usable.retain(|c| matches!(c.kind, DeviceKind::DiscreteGpu | DeviceKind::IntegratedGpu));
        }
        usable.into_iter().next().ok_or_else(|| unsupported(format!("no usable Vulkan device: {}", refused.join("; "))))
    }

    fn create_device(
        instance: &ash::Instance,
        c: Candidate,
        opts: &Options,
    ) -> Result<(ash::Device, vk::Queue, Candidate, Caps)> {
        let float64 = c.float64 && !opts.no_f64;
        let int64_atomics = c.int64_atomics && !opts.no_int64_atomics;
        let priorities = [1.0f32];
        let queues =
            [vk::DeviceQueueCreateInfo::default().queue_family_index(c.queue_family).queue_priorities(&priorities)];
        let features = vk::PhysicalDeviceFeatures::default()
            .shader_int64(true)
            .shader_float64(float64)
            .shader_storage_buffer_array_dynamic_indexing(c.dynamic_indexing);
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default()
            .storage_buffer8_bit_access(true)
            .shader_buffer_int64_atomics(int64_atomics);
        let info =
            vk::DeviceCreateInfo::default().queue_create_infos(&queues).enabled_features(&features).push_next(&mut f12);
        // SAFETY: the features were checked as supported; the info outlives the call.
        let device = checked("creating the device", unsafe { instance.create_device(c.physical, &info, None) })?;
        let queue = unsafe { device.get_device_queue(c.queue_family, 0) };
        let l = &c.props.limits;
        let caps = Caps {
            name: c.name.clone(),
            kind: c.kind,
            float64,
            int64_atomics,
            max_bindings: l
                .max_per_stage_descriptor_storage_buffers
                .min(l.max_descriptor_set_storage_buffers)
                .min(opts.max_bindings.unwrap_or(u32::MAX)),
            max_groups_x: l.max_compute_work_group_count[0].min(opts.max_groups.unwrap_or(u32::MAX)),
            max_groups_y: l.max_compute_work_group_count[1].min(opts.max_groups.unwrap_or(u32::MAX)),
            chunk_bytes: 1u64 << (63 - (l.max_storage_buffer_range as u64).max(1 << 16).leading_zeros()),
            chunked_arrays: c.dynamic_indexing,
            max_shared_bytes: l.max_compute_shared_memory_size,
            max_invocations: l.max_compute_work_group_invocations.min(l.max_compute_work_group_size[0]),
            timestamps: (c.timestamp_bits > 0)
                .then(|| (l.timestamp_period as f64, u64::MAX >> (64 - c.timestamp_bits.min(64)))),
            subgroup_shuffle: c.subgroup_shuffle,
            cache_key: format!(
                "vk-{:04x}-{:04x}-{:x}-{}",
                c.props.vendor_id,
                c.props.device_id,
                c.props.driver_version,
                c.props.pipeline_cache_uuid.iter().map(|b| format!("{b:02x}")).collect::<String>()
            ),
        };
        Ok((device, queue, c, caps))
    }

    /// Validation messages since the last call, if validation is on.
    pub fn take_messages(&self) -> Vec<String> {
        match &self.debug {
            Some((_, _, m)) => std::mem::take(&mut *m.lock()),
            None => Vec::new(),
        }
    }

    /// Fails with every validation message recorded since the last check.
    pub fn check_validation(&self) -> Result<()> {
        let messages = self.take_messages();
        if messages.is_empty() {
            return Ok(());
        }
        Err(Error::new(ErrorKind::Internal, format!("Vulkan validation: {}", messages.join(" | "))))
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: owners of device objects (the executor's parts) are dropped first.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            if let Some((du, m, _)) = &self.debug {
                du.destroy_debug_utils_messenger(*m, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}
