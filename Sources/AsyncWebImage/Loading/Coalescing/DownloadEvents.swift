import Foundation
import HTTPTypes

/// One subscriber's events from a ``DownloadCoalescer``: an `AsyncSequence`
/// of ``DownloadEvent`` that ends after ``DownloadEvent/completed(_:)``.
///
/// Iterate it once. Cancelling the iterating task, or releasing the
/// iterator early, makes the subscriber leave the transfer.
package struct DownloadEvents: AsyncSequence, Sendable {
    public typealias Element = DownloadEvent
    public typealias Failure = any Error

    let coalescer: DownloadCoalescer
    let request: DataRequest
    let modifiers: DownloadModifiers

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(coalescer: coalescer, request: request, modifiers: modifiers)
    }

    /// Iterates one subscriber's events; not `Sendable`: one task iterates.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private enum Stage {
            case idle
            case subscribed(DownloadSubscription)
            case done
        }

        private let coalescer: DownloadCoalescer
        private let request: DataRequest
        private let modifiers: DownloadModifiers
        private var stage = Stage.idle
        private var head: HTTPResponseHead?

        init(coalescer: DownloadCoalescer, request: DataRequest, modifiers: DownloadModifiers) {
            self.coalescer = coalescer
            self.request = request
            self.modifiers = modifiers
        }

        /// The next event, or nil after the completion.
        /// - Throws: ``ImageError`` or `CancellationError`; after a throw the iterator is finished.
        public mutating func next() async throws -> DownloadEvent? {
            do {
                let subscription: DownloadSubscription
                switch stage {
                case .done: return nil
                case .subscribed(let current): subscription = current
                case .idle:
                    subscription = try await subscribe()
                    stage = .subscribed(subscription)
                }
                // Until the head, the transfer may still wait for a slot:
                // its priority follows the subscriber's task.
                let next = head == nil ? try await subscription.nextFollowingTaskPriority() : try await subscription.next()
                guard let event = next else {
                    stage = .done
                    return nil
                }
                return try deliver(event)
            } catch {
                stage = .done // releasing the subscription leaves the transfer
                throw error
            }
        }

        private func subscribe() async throws -> DownloadSubscription {
            try Task.checkCancellation()
            var request = self.request
            if let modifier = modifiers.requestModifier {
                request = try await modifier.resolvedRequest(for: request)
                try Task.checkCancellation()
            }
            // A task of high priority (or above) subscribes at `.high`,
            // whatever the request says: priority follows the task. Lower
            // task priorities leave the request's own priority alone.
            if Task.currentPriority >= .high { request.priority = .high }
            return await coalescer.subscribe(request)
        }

        /// Applies this subscriber's response modifier and decryptor.
        private mutating func deliver(_ event: DownloadEvent) throws -> DownloadEvent {
            switch event {
            case .head(let received):
                var delivered = received
                if let modifier = modifiers.responseModifier {
                    guard let modified = modifier.modifiedResponse(for: received) else {
                        throw ImageError.responseRejected(
                            "status \(received.statusCode), Content-Type \(received.headers[.contentType] ?? "none")"
                        )
                    }
                    delivered = modified
                }
                head = delivered
                return .head(delivered)
            case .completed(let data):
                guard let decryptor = modifiers.decryptor, let head else { return event }
                return .completed(try decryptor.decryptedData(data, response: head))
            case .progress, .chunk:
                return event
            }
        }
    }
}

@available(*, unavailable)
extension DownloadEvents.AsyncIterator: Sendable {}
