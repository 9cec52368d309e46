// awi-decode: decodes image files with every coder of AsyncWebImageAllFormats
// and writes what it got as 8-bit RGBA PAM files, for scripts/conformance,
// which compares them with the reference decoders' output and with Pillow's
// and pyvips's. Not a product: a test tool, like awi-cache-stress.
//
//   awi-decode [--frames] [--keep-profile] [--jpeg-decode-available] [--avif-strict] OUTPUT_DIR FILE...
//
// For each FILE: OUTPUT_DIR/NAME.pam (the still decode), with --frames also
// NAME.N.pam for every frame of an animation, or NAME.err holding the
// ImageError. --keep-profile leaves embedded colour profiles unapplied.
// Exits 0 when every file was handled (decoded or refused).
import AsyncWebImage
import AsyncWebImageAVIF
import AsyncWebImageAllFormats
import Foundation

var arguments = Array(CommandLine.arguments.dropFirst())
var frames = false
var keepsProfile = false
var registry = ImageCoderRegistry.allFormats
while let flag = arguments.first, flag.hasPrefix("--") {
    arguments.removeFirst()
    switch flag {
    case "--frames": frames = true
    case "--keep-profile": keepsProfile = true
    case "--jpeg-decode-available": registry.add(JPEGCoder(damagedDataPolicy: .decodeAvailable))
    case "--avif-strict": registry.add(AVIFCoder(strictness: .strict))
    default:
        FileHandle.standardError.write(Data("unknown option \(flag)\n".utf8))
        exit(64)
    }
}
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: awi-decode [--frames] [--keep-profile] [--jpeg-decode-available] [--avif-strict] OUTPUT_DIR FILE...\n".utf8))
    exit(64)
}
let output = URL(fileURLWithPath: arguments.removeFirst())
try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)

/// `image` as an 8-bit RGBA PAM file.
func pam(_ image: Image) -> Data {
    var bytes = Data("P7\nWIDTH \(image.width)\nHEIGHT \(image.height)\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n".utf8)
    bytes.reserveCapacity(bytes.count + image.width * image.height * 4)
    image.withUnsafeBytes { pixels in
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = y * image.bytesPerRow + x * image.pixelFormat.bytesPerPixel
                switch image.pixelFormat {
                case .gray8: bytes += [pixels[p], pixels[p], pixels[p], 255]
                case .grayAlpha8: bytes += [pixels[p], pixels[p], pixels[p], pixels[p + 1]]
                case .rgb8: bytes += [pixels[p], pixels[p + 1], pixels[p + 2], 255]
                case .rgba8: bytes += [pixels[p], pixels[p + 1], pixels[p + 2], pixels[p + 3]]
                }
            }
        }
    }
    return bytes
}

for path in arguments {
    let name = URL(fileURLWithPath: path).lastPathComponent
    do {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var options = ImageDecodingOptions()
        options.decodesFirstFrameOnly = !frames
        options.keepsColorProfile = keepsProfile
        let image = try registry.decode(data, options: options)
        try pam(image).write(to: output.appendingPathComponent(name + ".pam"))
        if frames, let animation = image.animation {
            for index in 0..<animation.frameCount {
                do {
                    try pam(try animation.decodeFrame(at: index)).write(to: output.appendingPathComponent("\(name).\(index).pam"))
                } catch {
                    try Data("frame \(index): \(error)\n".utf8).write(to: output.appendingPathComponent("\(name).\(index).err"))
                    break
                }
            }
        }
    } catch {
        try Data("\(error)\n".utf8).write(to: output.appendingPathComponent(name + ".err"))
    }
}
