// A fresh process for AllocatorTuningTests. The allocator settings are
// process-wide and settled by the first loader, so each case runs here,
// creates its loaders, then probes glibc's allocator and prints what it saw.
//
// usage: awi-allocator-probe once | optout | default | tuned | release
//   once     three loaders (tuning A: mmap threshold 16 MiB; tuning B: 256 KiB;
//            opted out), then an 8 MiB and a 64 MiB allocation (main thread). Prints
//            "current <mmap threshold in effect, or none> mapped <bytes mmap'd for
//            the 8 MiB one> mapped64 <for the 64 MiB one>".
//   optout   one opted-out loader, then the same. Prints the same line.
//   default  one loader with the default configuration (no tuning asked for), then the same.
//   tuned    one loader with ImageLoader.AllocatorTuning.default, then the same.
//   release  one default loader; 48 buffers of 1 MiB written then freed.
//            Prints "burst B freed F released R trimmed T" (resident bytes
//            after writing, after freeing, after releaseFreeMemory; T 1 or 0).
//   thumbnail-rss SIZE WARMUP FILE [full]
//            the peak resident growth of one thumbnail (ThumbnailPeak.swift).
import AsyncWebImage
import CMalloc
import Foundation

/// A loader with no disk tier (the probe must not touch a cache directory).
func makeLoader(_ tuning: ImageLoader.AllocatorTuning?) -> ImageLoader {
    var configuration = ImageLoader.Configuration(cache: ImageCache(memory: MemoryCache(), disk: nil))
    configuration.allocatorTuning = tuning
    return ImageLoader(configuration: configuration)
}

/// A loader whose configuration says nothing about the allocator.
func makeDefaultLoader() -> ImageLoader {
    ImageLoader(configuration: ImageLoader.Configuration(cache: ImageCache(memory: MemoryCache(), disk: nil)))
}

/// Resident bytes from /proc/self/statm (second field, in pages).
func residentBytes() -> Int {
    let text = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return -1 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Bytes glibc mmap'd for one written allocation of `size` bytes.
func mappedBytes(forAllocationOf size: Int) -> Int {
    let before = awi_mallinfo_mmapped_bytes()
    guard let block = malloc(size) else { return -1 }
    memset(block, 1, size)
    let after = awi_mallinfo_mmapped_bytes()
    free(block)
    return Int(after) - Int(before)
}

func reportProbe(_ loaders: [ImageLoader]) {
    let mapped = mappedBytes(forAllocationOf: 8 * 1024 * 1024)
    let mapped64 = mappedBytes(forAllocationOf: 64 * 1024 * 1024)
    let current = ImageLoader.AllocatorTuning.current.map { String($0.mmapThreshold) } ?? "none"
    print("current \(current) mapped \(mapped) mapped64 \(mapped64) loaders \(loaders.count)")
}

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "once":
    let first = makeLoader(ImageLoader.AllocatorTuning(mmapThreshold: 16 * 1024 * 1024))
    let second = makeLoader(ImageLoader.AllocatorTuning(mmapThreshold: 256 * 1024))
    let third = makeLoader(nil)
    reportProbe([first, second, third])
case "optout":
    reportProbe([makeLoader(nil)])
case "default":
    reportProbe([makeDefaultLoader()])
case "tuned":
    reportProbe([makeLoader(.default)])
case "release":
    let loader = makeLoader(.default)
    let size = 1024 * 1024
    var blocks: [UnsafeMutableRawPointer] = []
    for _ in 0..<48 {
        guard let block = malloc(size) else { exit(3) }
        memset(block, 7, size)
        blocks.append(block)
    }
    let burst = residentBytes()
    for block in blocks { free(block) }
    let freed = residentBytes()
    let trimmed = ImageLoader.AllocatorTuning.releaseFreeMemory()
    let released = residentBytes()
    print("burst \(burst) freed \(freed) released \(released) trimmed \(trimmed ? 1 : 0) loader \(loader.configuration.decodingLimits.maxPixelCount > 0)")
case "thumbnail-rss":
    exit(ThumbnailPeak.run(Array(arguments.dropFirst())))
default:
    FileHandle.standardError.write(Data("usage: awi-allocator-probe once | optout | default | tuned | release | thumbnail-rss\n".utf8))
    exit(2)
}
