import CSVGRenderProcess
import AsyncWebImage
#if canImport(Glibc)
import Glibc
#endif

/// The entry point of a render worker process, called by the constructor
/// in `CSVGRenderProcess` before the application's `main` (which never
/// runs in a worker). Public only so that the linker keeps it; it is no API.
@_cdecl("awi_svg_render_worker_main")
public func _awiSVGRenderWorkerMain(_ socket: Int32) {
    SVGRenderWorker(socket: socket).run()
}

/// A child process that renders documents for the decodes of its parent,
/// one at a time, over a socket (``SVGRenderFrame``), until the socket
/// closes (its parent's exit closes it too) or nothing comes for
/// ``idleTimeout``. Its parent kills it when a render passes its deadline;
/// its CPU time per render is also limited (RLIMIT_CPU), and so is the
/// memory a render may take (RLIMIT_DATA), in case the parent cannot act.
struct SVGRenderWorker {
    let socket: Int32

    /// How long a worker waits for its next request before it exits: past
    /// ``SVGRenderer/idleLifetime``, so that its parent has stopped using it by then.
    static let idleTimeout: Int32 = 30_000

    func run() {
        if let nice = getenv("AWI_SVG_RENDER_NICE").flatMap({ Int32(String(cString: $0)) }), nice > 0 {
            _ = awi_svg_worker_limit(nice, 0, 0)
        }
        guard send(.hello, []) else { return }
        while true {
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Self.idleTimeout) == 1,
                  let header = receive(count: SVGRenderFrame.headerCount).flatMap(SVGRenderFrame.parseHeader),
                  header.kind == .request, header.length >= 4,
                  let request = receive(count: header.length) else { return }
            let cpuSeconds = SVGRenderFrame.read(request, at: 0, count: 4)
            if cpuSeconds > 0 { _ = awi_svg_worker_limit(0, UInt(cpuSeconds), 0) }
            // Results rather than throwing closures: the buffer methods rethrow untyped errors.
            let parsed = request.withUnsafeBytes { bytes in
                Result { () throws(ImageError) in try SVGRasterizer.parse(UnsafeRawBufferPointer(rebasing: bytes[4...])) }
            }
            guard case .success(let document) = parsed else {
                if case .failure(let error) = parsed, !fail(error) { return }
                continue
            }
            let intrinsic = document.intrinsicSize
            var size: [UInt8] = []
            SVGRenderFrame.append(intrinsic.width.bitPattern, to: &size)
            SVGRenderFrame.append(intrinsic.height.bitPattern, to: &size)
            guard send(.size, size),
                  let renderHeader = receive(count: SVGRenderFrame.headerCount).flatMap(SVGRenderFrame.parseHeader),
                  renderHeader.kind == .render, renderHeader.length == 16,
                  let render = receive(count: 16) else { return }
            let width = Int(SVGRenderFrame.read(render, at: 0, count: 4))
            let height = Int(SVGRenderFrame.read(render, at: 4, count: 4))
            guard width > 0, height > 0 else { continue }
            let dataBytes = SVGRenderFrame.read(render, at: 8, count: 8)
            if dataBytes > 0 { _ = awi_svg_worker_limit(0, 0, UInt64(dataBytes)) }
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            let rendered = pixels.withUnsafeMutableBytes { output in
                Result { () throws(ImageError) in try SVGRasterizer.render(document, size: PixelSize(width: width, height: height), into: output) }
            }
            if case .failure(let error) = rendered {
                guard fail(error) else { return }
                continue
            }
            guard send(.pixels, pixels) else { return }
        }
    }

    /// Sends a failure frame with the error's message.
    private func fail(_ error: ImageError) -> Bool {
        let message = if case .undecodable(_, let text) = error { text } else { error.description }
        return send(.failure, Array(message.utf8))
    }

    private func send(_ kind: SVGRenderFrame.Kind, _ payload: [UInt8]) -> Bool {
        write(SVGRenderFrame.header(kind, length: payload.count)) && write(payload)
    }

    private func write(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let sent = Glibc.send(socket, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 && errno == EINTR { continue }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    /// Exactly `count` bytes, or `nil` when the socket closes first.
    private func receive(count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let complete = bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < count {
                let received = recv(socket, buffer.baseAddress! + offset, count - offset, 0)
                if received < 0 && errno == EINTR { continue }
                guard received > 0 else { return false }
                offset += received
            }
            return true
        }
        return complete ? bytes : nil
    }
}
