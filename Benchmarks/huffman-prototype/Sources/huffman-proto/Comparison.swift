import BaselineDC

/// Whether the prototype's DC planes reproduce libjpeg-turbo's 1/8-scale raw planes.
enum Comparison {
    /// nil when every sample matches; otherwise where the first difference is.
    static func firstDifference(_ ours: DCPlanes, _ planes: TurboReference.Planes) -> String? {
        guard ours.components.count == planes.widths.count else {
            return "component count \(ours.components.count) vs \(planes.widths.count)"
        }
        for (index, component) in ours.components.enumerated() {
            // TurboJPEG pads planes to its MCU size with whatever sits past the row end;
            // only the image's own samples are compared.
            let width = min(planes.widths[index], component.scaledWidth)
            let height = min(planes.heights[index], component.scaledHeight)
            guard width <= component.blocksWide, height <= component.blocksHigh,
                  component.scaledWidth <= planes.widths[index], component.scaledHeight <= planes.heights[index] else {
                return "plane \(index) is \(planes.widths[index])x\(planes.heights[index]), image \(component.scaledWidth)x\(component.scaledHeight), grid \(component.blocksWide)x\(component.blocksHigh)"
            }
            let stride = planes.widths[index]
            let plane = planes.storage[index]
            for y in 0..<height {
                for x in 0..<width {
                    let expected = plane[y * stride + x]
                    let coefficient = component.coefficients[y * component.blocksWide + x]
                    let actual = DCPlanes.sample(coefficient: coefficient, quant: component.dcQuant)
                    if actual != expected {
                        return "plane \(index) (\(x),\(y)): ours \(actual) (dc \(coefficient) q \(component.dcQuant)), libjpeg-turbo \(expected)"
                    }
                }
            }
        }
        return nil
    }
}
