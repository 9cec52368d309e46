import Foundation
import Testing
@testable import AsyncWebImage

/// Every transition of the event channel's state machine, with plain
/// values for the waiter (an Int) and the termination action (a String).
@Suite("ImageEventChannelStateMachine: every transition")
struct ImageEventChannelStateMachineTests {
    typealias Machine = ImageEventChannelStateMachine<Int, String>
    struct Failure: Error, Equatable {}

    static let response = LoadResult(image: TestImages.gray(side: 2), data: nil, cacheType: .memory, url: URL(string: "https://a.example/x")!)

    static func isProgress(_ ready: Machine.Ready, _ bytes: Int64) -> Bool {
        if case .event(.progress(let received, _)) = ready { return received == bytes }
        return false
    }

    static func waiter(of resume: Machine.Resume) -> Int? {
        switch resume {
        case .none: nil
        case .returning(let waiter, _), .throwing(let waiter, _): waiter
        }
    }

    @Test("send queues without a waiter; next pops in order; then none")
    func sendQueues() {
        var machine = Machine()
        guard case .none = machine.send(.progress(received: 1, expected: 9)) else { Issue.record("resumed nobody"); return }
        #expect(Self.isProgress(machine.next(), 1))
        guard case .none = machine.next() else { Issue.record("expected nothing ready"); return }
    }

    @Test("send to a parked consumer resumes it with the event and un-parks it")
    func sendResumesWaiter() {
        var machine = Machine()
        guard case .none = machine.next(parking: 7) else { Issue.record("nothing was ready"); return }
        #expect(machine.hasWaiter)
        guard case .returning(7, .progress(received: 3, _)?) = machine.send(.progress(received: 3, expected: nil)) else {
            Issue.record("expected waiter 7 resumed with progress"); return
        }
        #expect(!machine.hasWaiter)
        // A second send queues (nobody parked).
        guard case .none = machine.send(.progress(received: 4, expected: nil)) else { Issue.record("nobody to resume"); return }
        #expect(Self.isProgress(machine.next(), 4))
    }

    @Test("complete with a parked consumer resumes it with the response; the next call ends")
    func completeResumes() {
        var machine = Machine()
        _ = machine.onTermination("cancel work")
        _ = machine.next(parking: 1)
        guard case .returning(1, .finished?) = machine.complete(with: Self.response) else { Issue.record("expected finished"); return }
        #expect(machine.isClosed)
        #expect(!machine.hasTermination)
        guard case .end = machine.next() else { Issue.record("expected end"); return }
        // Sends after the end are ignored.
        guard case .none = machine.send(.progress(received: 1, expected: nil)) else { Issue.record("ignored"); return }
        guard case .end = machine.next() else { Issue.record("still the end"); return }
    }

    @Test("complete without a waiter queues the response after pending progress, then the end")
    func completeQueues() {
        var machine = Machine()
        _ = machine.send(.progress(received: 5, expected: nil))
        guard case .none = machine.complete(with: Self.response) else { Issue.record("nobody to resume"); return }
        #expect(Self.isProgress(machine.next(), 5))
        guard case .event(.finished) = machine.next() else { Issue.record("expected the response"); return }
        guard case .end = machine.next() else { Issue.record("expected end"); return }
    }

    @Test("finish with an error: a parked consumer gets it; a queued event is delivered first")
    func finishWithError() {
        var parked = Machine()
        _ = parked.next(parking: 2)
        guard case .throwing(2, let error) = parked.finish(throwing: Failure()), error is Failure else { Issue.record("expected throw"); return }
        guard case .end = parked.next() else { Issue.record("the end was delivered"); return }

        var queued = Machine()
        _ = queued.send(.progress(received: 1, expected: nil))
        guard case .none = queued.finish(throwing: Failure()) else { Issue.record("nobody parked"); return }
        #expect(Self.isProgress(queued.next(), 1))
        guard case .fail(let error) = queued.next(), error is Failure else { Issue.record("expected the failure"); return }
        guard case .end = queued.next() else { Issue.record("then the end"); return }
    }

    @Test("finish without an error ends quietly; finishing twice does nothing")
    func finishQuietly() {
        var machine = Machine()
        _ = machine.next(parking: 3)
        guard case .returning(3, nil) = machine.finish(throwing: nil) else { Issue.record("expected nil"); return }
        guard case .none = machine.finish(throwing: Failure()) else { Issue.record("already closed"); return }
        guard case .end = machine.next() else { Issue.record("expected end"); return }
    }

    @Test("terminate drops the queue, fails a parked consumer with CancellationError and hands out the action")
    func terminate() {
        var machine = Machine()
        #expect({ if case .stored = machine.onTermination("cancel work") { true } else { false } }())
        _ = machine.next(parking: 4)
        let (resume, action) = machine.terminate()
        guard case .throwing(4, let error) = resume, error is CancellationError else { Issue.record("expected cancellation"); return }
        #expect(action == "cancel work")
        guard case .end = machine.next() else { Issue.record("the end was delivered with the error"); return }
        // A termination registered afterwards runs at once.
        guard case .runNow("late") = machine.onTermination("late") else { Issue.record("expected runNow"); return }
    }

    @Test("terminate without a parked consumer: the next call throws CancellationError once, then ends")
    func terminateUnparked() {
        var machine = Machine()
        _ = machine.send(.progress(received: 1, expected: nil))
        let (resume, action) = machine.terminate()
        #expect(Self.waiter(of: resume) == nil)
        #expect(action == nil)
        guard case .fail(let error) = machine.next(), error is CancellationError else { Issue.record("expected cancellation"); return }
        guard case .end = machine.next() else { Issue.record("then the end"); return }
    }

    @Test("a termination action registered after the producer finished is dropped")
    func terminationAfterFinish() {
        var machine = Machine()
        _ = machine.finish(throwing: nil)
        guard case .dropped = machine.onTermination("too late") else { Issue.record("expected dropped"); return }
        let (_, action) = machine.terminate()
        #expect(action == nil)
    }

    @Test("a parked consumer is not parked again when something is ready")
    func parkingWhenReady() {
        var machine = Machine()
        _ = machine.send(.progress(received: 2, expected: nil))
        #expect(Self.isProgress(machine.next(parking: 9), 2))
        #expect(!machine.hasWaiter)
    }
}
