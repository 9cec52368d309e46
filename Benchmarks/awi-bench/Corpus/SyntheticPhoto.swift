import Foundation

/// Deterministic RGB pictures that make codecs work the way photographs do.
///
/// Flat colour or pure noise would flatter or punish a codec unrealistically;
/// a photograph has smooth gradients (sky, skin), sharp edges (objects),
/// fine texture (foliage, fabric) and sensor noise. Each of those is here,
/// scaled with the image so that 0.3 MP and 12 MP pictures look alike.
enum SyntheticPhoto {
    /// Tightly packed RGB8 pixels of a `width`×`height` picture made from `seed`.
    static func rgb(width: Int, height: Int, seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        // Gradients: separable low-frequency waves per channel, plus a
        // diagonal one so the picture is not a plain grid of bands.
        func wave(_ length: Int, periods: Double, amplitude: Double, random: inout SplitMix64) -> [Float] {
            let phase = Double.random(in: 0..<(2 * .pi), using: &random)
            return (0..<length).map { Float(amplitude * sin(2 * .pi * periods * Double($0) / Double(length) + phase)) }
        }
        var columns: [[Float]] = [], rows: [[Float]] = [], diagonals: [[Float]] = []
        var bases: [Float] = []
        for _ in 0..<3 {
            columns.append(wave(width, periods: Double.random(in: 0.3...1.5, using: &random), amplitude: 45, random: &random))
            rows.append(wave(height, periods: Double.random(in: 0.3...1.5, using: &random), amplitude: 45, random: &random))
            diagonals.append(wave(width + height, periods: Double.random(in: 1...3, using: &random), amplitude: 20, random: &random))
            bases.append(Float.random(in: 90...160, using: &random))
        }

        let scale = Double(min(width, height))
        var pixels = [Float](repeating: 0, count: width * height * 3)
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                for x in 0..<width {
                    let p = (y * width + x) * 3
                    for c in 0..<3 {
                        out[p + c] = bases[c] + columns[c][x] + rows[c][y] + diagonals[c][x + y]
                    }
                }
            }
            // Objects with hard edges: ellipses and rectangles, some textured.
            let shapeCount = 12 + Int(Double(width * height) / 250_000)
            for _ in 0..<shapeCount {
                let w = Int(scale * Double.random(in: 0.04...0.3, using: &random))
                let h = Int(scale * Double.random(in: 0.04...0.3, using: &random))
                let x0 = Int.random(in: -w / 2..<width, using: &random)
                let y0 = Int.random(in: -h / 2..<height, using: &random)
                let colour = (0..<3).map { _ in Float.random(in: 20...235, using: &random) }
                let opacity = Float.random(in: 0.5...0.9, using: &random)
                let ellipse = Bool.random(using: &random)
                let texture = Int.random(in: 0..<3, using: &random) == 0 ? Float.random(in: 10...35, using: &random) : 0
                let stripe = max(2, Int(scale / 400))
                for y in max(0, y0)..<min(height, y0 + h) {
                    for x in max(0, x0)..<min(width, x0 + w) {
                        if ellipse {
                            let dx = (Double(x - x0) + 0.5) / Double(w) * 2 - 1
                            let dy = (Double(y - y0) + 0.5) / Double(h) * 2 - 1
                            if dx * dx + dy * dy > 1 { continue }
                        }
                        let shade: Float = texture == 0 ? 0 : (((x / stripe) + (y / (stripe + 1))) & 1 == 0 ? texture : -texture)
                        let p = (y * width + x) * 3
                        for c in 0..<3 {
                            out[p + c] = out[p + c] * (1 - opacity) + (colour[c] + shade) * opacity
                        }
                    }
                }
            }
        }

        // Texture at every scale (foliage, fabric, skin, gravel): value noise
        // in octaves from a sixth of the picture down to a few pixels.
        let octaves: [(cell: Double, amplitude: Float)] = [
            (scale / 6, 28), (scale / 24, 18), (scale / 96, 12), (6, 9), (2.5, 7),
        ]
        pixels.withUnsafeMutableBufferPointer { out in
            for octave in octaves {
                addValueNoise(out, width: width, height: height, cell: max(1.5, octave.cell), amplitude: octave.amplitude, random: &random)
            }
        }

        // Sensor noise: mostly luminance, a little chroma; triangular
        // distribution from two uniform draws.
        return [UInt8](unsafeUninitializedCapacity: width * height * 3) { buffer, initialized in
            pixels.withUnsafeBufferPointer { source in
                for i in 0..<(width * height) {
                    let bits = random.next()
                    let luma = Float(Int(bits & 0xFF) + Int((bits >> 8) & 0xFF) - 255) / 255 * 9
                    for c in 0..<3 {
                        let chroma = Float(Int((bits >> (16 + 8 * UInt64(c))) & 0xFF) - 128) / 128 * 2
                        let value = source[i * 3 + c] + luma + chroma
                        buffer[i * 3 + c] = UInt8(max(0, min(255, value.rounded())))
                    }
                }
            }
            initialized = width * height * 3
        }
    }

    /// Adds bilinearly interpolated random values on a grid of `cell` pixels
    /// to the luminance of every pixel.
    private static func addValueNoise(
        _ out: UnsafeMutableBufferPointer<Float>, width: Int, height: Int, cell: Double, amplitude: Float,
        random: inout SplitMix64
    ) {
        let columns = Int(Double(width) / cell) + 2
        let rows = Int(Double(height) / cell) + 2
        let grid = (0..<(columns * rows)).map { _ in Float.random(in: -amplitude...amplitude, using: &random) }
        let inverse = 1 / cell
        grid.withUnsafeBufferPointer { grid in
            for y in 0..<height {
                let gy = Double(y) * inverse
                let row = Int(gy)
                let fy = Float(gy - Double(row))
                for x in 0..<width {
                    let gx = Double(x) * inverse
                    let column = Int(gx)
                    let fx = Float(gx - Double(column))
                    let i = row * columns + column
                    let top = grid[i] + (grid[i + 1] - grid[i]) * fx
                    let bottom = grid[i + columns] + (grid[i + columns + 1] - grid[i + columns]) * fx
                    let value = top + (bottom - top) * fy
                    let p = (y * width + x) * 3
                    out[p] += value
                    out[p + 1] += value
                    out[p + 2] += value
                }
            }
        }
    }
}
