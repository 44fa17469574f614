/// Settings of one run that come from the command line rather than the matrix.
public struct RunOptions: Sendable {
    public var matrixFile: String
    public var commandLine: [String]
    /// Labels to run (nil = all of the matrix's transports).
    public var transports: [String]?
    public var seed: UInt64?
    public var repetitions: Int?
    public var cellTimeoutSeconds: Double?
    /// nil = the matrix's `"order"` (default interleaved).
    public var order: CellOrder?
    /// nil = every cell.
    public var shard: Shard?
    /// `--note`; nil keeps a resumed run's note.
    public var note: String?
    /// `--repetitions auto[:MAX]` (then `repetitions` is MAX) or a fixed count (false);
    /// nil: as the matrix says.
    public var autoRepetitions: Bool?

    public init(
        matrixFile: String, commandLine: [String], transports: [String]? = nil, seed: UInt64? = nil,
        repetitions: Int? = nil, cellTimeoutSeconds: Double? = nil, order: CellOrder? = nil, shard: Shard? = nil, note: String? = nil,
        autoRepetitions: Bool? = nil
    ) {
        self.matrixFile = matrixFile
        self.commandLine = commandLine
        self.transports = transports
        self.seed = seed
        self.repetitions = repetitions
        self.cellTimeoutSeconds = cellTimeoutSeconds
        self.order = order
        self.shard = shard
        self.note = note
        self.autoRepetitions = autoRepetitions
    }
}
