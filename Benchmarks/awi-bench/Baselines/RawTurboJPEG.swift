import CTurboJPEG
import Foundation

/// Direct TurboJPEG calls: the corpus encoder, and the baseline the library's
/// `JPEGCoder` is measured against. Nothing here goes through the library.
enum RawTurboJPEG {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Encodes tightly packed RGB8 pixels, 4:2:0, baseline or progressive.
    static func encode(rgb: [UInt8], width: Int, height: Int, quality: Int, progressive: Bool) throws -> Data {
        guard let handle = tjInitCompress() else { throw Failure(description: "tjInitCompress failed") }
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let flags = progressive ? TJFLAG_PROGRESSIVE : 0
        let status = rgb.withUnsafeBufferPointer {
            tjCompress2(
                handle, $0.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue),
                &buffer, &size, Int32(TJSAMP_420.rawValue), Int32(quality), flags
            )
        }
        defer { tjFree(buffer) }
        guard status == 0, let buffer else { throw Failure(description: message(handle)) }
        return Data(bytes: buffer, count: Int(size))
    }

    /// Width and height from the header, or `nil` when TurboJPEG cannot read it.
    static func size(of data: Data) -> (width: Int, height: Int)? {
        guard let handle = tjInitDecompress() else { return nil }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let status = data.withUnsafeBytes {
            tjDecompressHeader3(
                handle, $0.bindMemory(to: UInt8.self).baseAddress, UInt($0.count),
                &width, &height, &subsampling, &colorspace
            )
        }
        return status == 0 ? (Int(width), Int(height)) : nil
    }

    /// A reusable decompressor, the cheapest way to call TurboJPEG repeatedly:
    /// the baseline reuses its handle so that it measures nothing but the
    /// decode and the output allocation every decoder must make.
    final class Decompressor {
        private let handle: tjhandle

        init() throws {
            guard let handle = tjInitDecompress() else { throw Failure(description: "tjInitDecompress failed") }
            self.handle = handle
        }

        deinit { tjDestroy(handle) }

        /// Decodes the whole image into a new buffer of `pixelFormat`
        /// (`TJPF_RGB`, `TJPF_RGBA`, `TJPF_GRAY`); returns the pixels and size.
        func decode(_ data: Data, pixelFormat: TJPF) throws -> (pixels: [UInt8], width: Int, height: Int) {
            try data.withUnsafeBytes { raw in
                let source = raw.bindMemory(to: UInt8.self).baseAddress
                var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
                guard tjDecompressHeader3(handle, source, UInt(raw.count), &width, &height, &subsampling, &colorspace) == 0 else {
                    throw Failure(description: RawTurboJPEG.message(handle))
                }
                let channels = pixelSize(pixelFormat)
                let count = Int(width) * Int(height) * channels
                var status: Int32 = 0
                let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                    status = tjDecompress2(
                        handle, source, UInt(raw.count), buffer.baseAddress, width, 0, height,
                        Int32(pixelFormat.rawValue), 0
                    )
                    initialized = count
                }
                guard status == 0 else { throw Failure(description: RawTurboJPEG.message(handle)) }
                return (pixels, Int(width), Int(height))
            }
        }

        /// Decodes at TurboJPEG's smallest DCT scaling factor whose output
        /// still covers `minimum` (what a thumbnail decode does before its
        /// final resample); returns the pixels and the scaled size.
        func decodeScaled(_ data: Data, pixelFormat: TJPF, covering minimum: (width: Int, height: Int)) throws -> (pixels: [UInt8], width: Int, height: Int, scale: String) {
            try data.withUnsafeBytes { raw in
                let source = raw.bindMemory(to: UInt8.self).baseAddress
                var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
                guard tjDecompressHeader3(handle, source, UInt(raw.count), &width, &height, &subsampling, &colorspace) == 0 else {
                    throw Failure(description: RawTurboJPEG.message(handle))
                }
                var factorCount: Int32 = 0
                guard let factors = tjGetScalingFactors(&factorCount) else { throw Failure(description: "tjGetScalingFactors failed") }
                func scaled(_ dimension: Int32, _ factor: tjscalingfactor) -> Int {
                    Int((dimension * factor.num + factor.denom - 1) / factor.denom)
                }
                var best: (width: Int, height: Int, factor: tjscalingfactor)?
                for index in 0..<Int(factorCount) {
                    let factor = factors[index]
                    let w = scaled(width, factor), h = scaled(height, factor)
                    guard w >= minimum.width, h >= minimum.height else { continue }
                    if best == nil || w * h < best!.width * best!.height { best = (w, h, factor) }
                }
                let chosen = best ?? (Int(width), Int(height), tjscalingfactor(num: 1, denom: 1))
                let count = chosen.width * chosen.height * pixelSize(pixelFormat)
                var status: Int32 = 0
                let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                    status = tjDecompress2(
                        handle, source, UInt(raw.count), buffer.baseAddress, Int32(chosen.width), 0, Int32(chosen.height),
                        Int32(pixelFormat.rawValue), 0
                    )
                    initialized = count
                }
                guard status == 0 else { throw Failure(description: RawTurboJPEG.message(handle)) }
                return (pixels, chosen.width, chosen.height, "\(chosen.factor.num)/\(chosen.factor.denom)")
            }
        }

        private func pixelSize(_ format: TJPF) -> Int {
            switch format {
            case TJPF_GRAY: 1
            case TJPF_RGB, TJPF_BGR: 3
            default: 4
            }
        }
    }

    fileprivate static func message(_ handle: tjhandle) -> String {
        String(cString: tjGetErrorStr2(handle))
    }
}
