import Foundation

/// Whether a sanitizer runtime is linked into this process (and so into the
/// helpers built the same way): its allocator stands in for glibc's, and
/// its shadow memory and quarantine make resident-set figures meaningless.
public let sanitizerReplacesMalloc: Bool = {
    guard let handle = dlopen(nil, RTLD_NOW) else { return false }
    defer { dlclose(handle) }
    return dlsym(handle, "__tsan_init") != nil || dlsym(handle, "__asan_init") != nil
}()
