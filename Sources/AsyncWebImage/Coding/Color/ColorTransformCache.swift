import AWILocking
import CLcms2
import Foundation
import Synchronization

/// A bounded cache of lcms2 transforms to sRGB, keyed by a digest of the
/// source profile's bytes and the pixel layout, so that the images of one
/// camera or one site pay for a transform once.
///
/// A transform costs a few hundred microseconds to a few milliseconds to
/// build (far more for large CMYK lookup tables), converting costs a few
/// nanoseconds a pixel. What is cached is the *verdict* for the profile:
/// a transform, "equivalent to sRGB, nothing to do", or "refused, because…",
/// so a broken profile seen again is not parsed again either.
///
/// Lookups take a lock for a dictionary access; building a transform happens
/// outside the lock (two threads missing on the same key at once may both
/// build one; the first stored wins). Least recently used entries go first.
package final class ColorTransformCache: Sendable {
    /// The cache the decoders use.
    static let shared = ColorTransformCache(capacity: 32)

    /// What a profile means for pixels of one layout.
    enum Verdict: Sendable {
        /// The profile is sRGB in all but name: no conversion.
        case identity
        /// Convert through this transform.
        case transform(ColorTransform)
        /// The profile cannot be used; the reason, for ``Image/ColorConversion/skipped(reason:)``.
        case refused(String)
    }

    /// A profile's identity: a 64-bit FNV-1a digest for hashing, the bytes
    /// for equality (so a digest collision can never pick a wrong transform).
    ///
    /// The bytes are an array, not `Data`: `Data` keeps its storage behind a
    /// pointer with enum tag bits, which LeakSanitizer cannot follow, so a
    /// long-lived cache of `Data` reads as a leak in the fuzz runs.
    struct Key: Hashable {
        let digest: UInt64
        let profile: [UInt8]
        let layout: ColorPixelLayout

        init(profile: Data, layout: ColorPixelLayout) {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            profile.withUnsafeBytes { bytes in
                for byte in bytes {
                    hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
                }
            }
            self.digest = hash
            self.profile = [UInt8](profile)
            self.layout = layout
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(digest)
            hasher.combine(layout)
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.digest == rhs.digest && lhs.layout == rhs.layout && lhs.profile == rhs.profile
        }
    }

    private struct State {
        var entries: [Key: Verdict] = [:]
        /// Keys from least to most recently used.
        var order: [Key] = []
        var creations = 0
    }

    /// The most entries kept.
    let capacity: Int
    private let state = Lock(State())

    /// A cache of at most `capacity` profile × layout verdicts.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many verdicts were computed (profile parsed, transform built),
    /// i.e. cache misses, since the cache was made.
    var creations: Int { state.withLock { $0.creations } }

    /// The number of entries held.
    var count: Int { state.withLock { $0.entries.count } }

    /// The verdict for `profile` and `layout`, from the cache or computed now.
    func verdict(profile: Data, layout: ColorPixelLayout) -> Verdict {
        let key = Key(profile: profile, layout: layout)
        let cached: Verdict? = state.withLock { state in
            guard let verdict = state.entries[key] else { return nil }
            if let index = state.order.firstIndex(of: key) {
                state.order.remove(at: index)
                state.order.append(key)
            }
            return verdict
        }
        if let cached { return cached }
        let verdict = Self.computeVerdict(profile: profile, layout: layout)
        return state.withLock { state in
            state.creations += 1
            if let winner = state.entries[key] { return winner }
            state.entries[key] = verdict
            state.order.append(key)
            if state.order.count > capacity {
                state.entries[state.order.removeFirst()] = nil
            }
            return verdict
        }
    }

    /// Parses the profile, checks its colour space, builds the transform and
    /// tells whether it changes anything (``isIdentity(_:)``).
    static func computeVerdict(profile: Data, layout: ColorPixelLayout) -> Verdict {
        let parsed = profile.withUnsafeBytes { LcmsProfile(bytes: $0) }
        guard let parsed else { return .refused("lcms2 cannot read the \(profile.count)-byte ICC profile") }
        let space = parsed.colorSpace
        guard space == layout.profileColorSpace else {
            return .refused("a \(Self.name(of: space.rawValue)) profile for \(layout) pixels")
        }
        guard let transform = ColorTransform(from: parsed, layout: layout) else {
            return .refused("lcms2 refuses a transform from the profile to sRGB")
        }
        return layout != .invertedCMYK && isIdentity(transform) ? .identity : .transform(transform)
    }

    /// Whether `transform` leaves every probe colour within 1 of itself: all
    /// 256 greys, ramps of each primary and secondary, and a 6×6×6 cube. True
    /// of sRGB profiles, whatever their name or version, which then cost
    /// nothing per pixel.
    static func isIdentity(_ transform: ColorTransform) -> Bool {
        let layout = transform.layout
        var colors: [[UInt8]] = (0...255).map { [UInt8($0), UInt8($0), UInt8($0)] }
        for step in stride(from: 0, through: 255, by: 15) {
            let v = UInt8(step)
            colors += [[v, 0, 0], [0, v, 0], [0, 0, v], [v, v, 0], [0, v, v], [v, 0, v]]
        }
        for r in stride(from: 0, through: 255, by: 51) {
            for g in stride(from: 0, through: 255, by: 51) {
                for b in stride(from: 0, through: 255, by: 51) { colors.append([UInt8(r), UInt8(g), UInt8(b)]) }
            }
        }
        if layout.isGray { colors = (0...255).map { [UInt8($0)] } }
        let size = layout.bytesPerPixel
        var probe = [UInt8](repeating: 255, count: colors.count * size)
        for (index, color) in colors.enumerated() {
            for channel in 0..<layout.colorChannels { probe[index * size + channel] = color[channel] }
        }
        var output = [UInt8](repeating: 0, count: probe.count)
        probe.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { destination in
                transform.apply(
                    source.baseAddress!, sourceStride: probe.count,
                    into: destination.baseAddress!, destinationStride: probe.count,
                    width: colors.count, height: 1
                )
            }
        }
        return zip(probe, output).allSatisfy { abs(Int($0) - Int($1)) <= 1 }
    }

    /// A colour space signature as its four characters (`'RGB '` → "RGB").
    static func name(of signature: UInt32) -> String {
        let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: signature >> $0) }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        return bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) ? text : String(format: "0x%08X", signature)
    }
}
