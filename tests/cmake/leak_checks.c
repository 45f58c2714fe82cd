/* Linked into every program of the sanitizer builds of the C and C++ tests (sanitize.cmake).
 * (Sluice's own blocks are visible to the sanitizer: under one, its heap is the C library's
 * malloc, src/allocator.rs.)
 *
 * The Vulkan loader unloads drivers and layers when an instance is destroyed. Memory a
 * driver still points to from its own globals then looks leaked, and from a module that is
 * gone LeakSanitizer cannot even say whose it is ("<unknown module>"; lavapipe in Mesa
 * 22.3.6-1+deb12u2 leaves 128 bytes so). So modules stay loaded: what they point to stays
 * reachable, and a real leak of theirs is reported with the module's name, which the
 * suppressions below match. They name only the Vulkan loader, drivers, layers and the
 * drivers' shader compiler, never Sluice: a leak whose stack passes through libsluice but
 * allocates inside the driver is left to the validation layers, which report Vulkan objects
 * never destroyed (the Rust suites run on Vulkan with them on). */

/* Replaces the C library's dlclose for the whole process (the executable's definition comes
 * first in symbol lookup; sanitize.cmake exports it): nothing is unloaded. */
int dlclose(void *handle);
int dlclose(void *handle) {
    (void)handle;
    return 0;
}

/* LeakSanitizer reads its built-in suppressions from this hook: a leak is suppressed when
 * any frame of its allocation stack lies in a module whose path contains one of these. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
    return "leak:libvulkan.so\n"  /* the Vulkan loader */
           "leak:libvulkan_\n"    /* Mesa's Vulkan drivers (lavapipe: libvulkan_lvp.so) */
           "leak:libLLVM\n"       /* lavapipe's shader compiler */
           "leak:libVkLayer_\n";  /* layers (the validation layers with SLUICE_VULKAN_VALIDATION=on) */
}
