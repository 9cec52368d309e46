import NIOCore

/// Writes commands in RESP2's request form: an array of bulk strings,
/// binary-safe (`*2\r\n$3\r\nGET\r\n$5\r\nkey:1\r\n`).
enum RESPCommand {
    /// Appends `arguments` as one command to `buffer`.
    static func write(_ arguments: [[UInt8]], to buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(ascii: "*"))
        writeDecimal(arguments.count, to: &buffer)
        for argument in arguments {
            buffer.writeInteger(UInt8(ascii: "$"))
            writeDecimal(argument.count, to: &buffer)
            buffer.writeBytes(argument)
            buffer.writeInteger(UInt16(0x0D0A))
        }
    }

    /// The bytes a pipeline of `commands` takes on the wire.
    static func encodedCount(_ commands: [[[UInt8]]]) -> Int {
        commands.reduce(0) { total, arguments in
            arguments.reduce(total + 16) { $0 + $1.count + 16 }
        }
    }

    /// `value` in decimal, then CRLF.
    private static func writeDecimal(_ value: Int, to buffer: inout ByteBuffer) {
        buffer.writeString(String(value))
        buffer.writeInteger(UInt16(0x0D0A))
    }
}
