/// A listener that could not be opened.
struct ListenError: Error, CustomStringConvertible {
    let role: String
    let host: String
    let port: Int
    let reason: String

    var description: String {
        let flag = role == "operator" ? "--operator-port" : "--port"
        return "cannot listen on \(host):\(port) (\(role) listener, \(flag)): \(reason)"
    }
}
