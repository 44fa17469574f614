public enum JSONParser {
    /// Parses a complete document; trailing content other than white space is an error.
    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        try JSONTape(parsing: bytes).root.value
    }

    /// A line of a journal, without copying it out of the reader's buffer.
    public static func parse(_ bytes: ArraySlice<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        try JSONTape(parsing: bytes).root.value
    }
}
