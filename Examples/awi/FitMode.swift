import ArgumentParser
import AsyncWebImage

/// `--fit`: how `--resize` treats the aspect ratio.
enum FitMode: String, CaseIterable, ExpressibleByArgument {
    case fit, fill, stretch

    /// The resize mode it stands for.
    var mode: ImageTransformers.Resize.Mode {
        switch self {
        case .fit: .fit
        case .fill: .fill
        case .stretch: .stretch
        }
    }
}
