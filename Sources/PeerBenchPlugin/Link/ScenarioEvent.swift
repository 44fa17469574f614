/// When a cell's scenario changes the link, as the link model resolved it for one
/// environment and distance: what the runner needs to turn the receiver's view into
/// the record's `scenario` figures. Times are seconds on the link's clock (0 = the
/// emulator's start for the cell).
public struct ScenarioEvent: Sendable, Equatable {
    /// The scenario's name in the matrix and its kind (`walk-away`, `outage`, `body-block`, `trace`).
    public var name: String, kind: String
    /// When the event begins (the outage, the walk, the first block); nil when the
    /// scenario has no single event (a trace).
    public var startSeconds: Double?
    /// When the link is back as before; nil when it does not come back during the cell
    /// (a walk-away without `back`) or there is no event.
    public var endSeconds: Double?
    /// The longest stretch in which the link delivers nothing at all (an outage; a walk
    /// beyond the range the radio can hold), seconds; 0 when it never goes dead.
    public var deadSeconds: Double
    /// When that dead stretch begins, seconds; nil when there is none.
    public var deadStartSeconds: Double?
    /// The timeline for `validate`, one line per phase.
    public var timeline: [String]

    public init(
        name: String, kind: String, startSeconds: Double?, endSeconds: Double?, deadSeconds: Double = 0,
        deadStartSeconds: Double? = nil, timeline: [String]
    ) {
        self.name = name
        self.kind = kind
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
        self.deadSeconds = deadSeconds
        self.deadStartSeconds = deadStartSeconds
        self.timeline = timeline
    }
}
