/// Why a node refused `AUTH`, named from its error reply without keeping
/// any of the reply's text: Redis may quote the command's arguments in it
/// (Redis 7 answers a renamed or unknown `AUTH` with `ERR unknown command
/// 'AUTH', with args beginning with: 'user' 'password'`), so the text of an
/// `AUTH` reply never reaches an error, a log line or standard error.
enum RedisAuthenticationRefusal: Sendable, Equatable, CustomStringConvertible {
    /// `WRONGPASS`: the user does not exist, is disabled, or the password is wrong.
    case wrongCredentials
    /// The node does not know `AUTH` (renamed or disabled with `rename-command`).
    case unknownCommand
    /// The node has no password to check (`AUTH` sent to a server without `requirepass`).
    case noPasswordSet
    /// Another error reply, by its code (`ERR`, `NOPERM`, …; `ERR` when it has none).
    case other(code: String)

    /// Reads the refusal from `reply`, an error reply's text (`WRONGPASS …`).
    init(reply: String) {
        let firstWord = reply.prefix { $0 != " " }
        // An error code is a short word of capitals; anything else is not a code, and is not kept.
        let code = !firstWord.isEmpty && firstWord.count <= 32 && firstWord.allSatisfy({ $0.isASCII && $0.isUppercase })
            ? String(firstWord) : "ERR"
        let text = reply.lowercased()
        if code == "WRONGPASS" {
            self = .wrongCredentials
        } else if code == "ERR" && text.contains("unknown command") {
            self = .unknownCommand
        } else if code == "ERR" && (text.contains("no password is set") || text.contains("without any password configured")) {
            self = .noPasswordSet
        } else {
            self = .other(code: code)
        }
    }

    /// The reply's code and what it means, never the reply's own text.
    var description: String {
        switch self {
        case .wrongCredentials: "WRONGPASS: wrong user name or password, or the user is disabled"
        case .unknownCommand: "ERR: the server does not know AUTH (a renamed or disabled command)"
        case .noPasswordSet: "ERR: the server has no password set (requirepass), yet credentials were given"
        case .other(let code): "\(code): AUTH refused"
        }
    }
}
