/// Waits until `condition` holds, checking at most `attempts` times about a
/// millisecond apart (bounded in count and time), and returns whether it did.
///
/// For states reached by another task (a waiter registering, a background
/// pass finishing), never for the passing of time that is under test.
public func eventually(attempts: Int = 5000, _ condition: () async throws -> Bool) async rethrows -> Bool {
    for _ in 0..<attempts {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return try await condition()
}
