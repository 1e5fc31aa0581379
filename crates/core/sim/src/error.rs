//! Simulation errors: each names the line, the offending token and what was expected.

/// What went wrong while simulating an event.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SimErrorKind {
    /// A type identifier is unknown.
    #[error("unknown type '{token}'; expected the alias (or, when it has none, the name) of a defined {expected}")]
    UnknownType {
        /// The identifier found.
        token: String,
        /// What kind of type was expected.
        expected: &'static str,
    },
    /// A container identifier is unknown.
    #[error("unknown container '{token}'{hint}; expected the alias (or, when it has none, the name) of a created container{advice}")]
    UnknownContainer {
        /// The identifier found.
        token: String,
        /// Extra explanation (e.g. the name matches a container that has an alias).
        hint: String,
        /// The options that may let the trace be read.
        advice: String,
    },
    /// A type has the wrong nature.
    #[error("type '{token}' is a {found} type; expected a {expected} type")]
    WrongTypeKind {
        /// The identifier.
        token: String,
        /// Its nature.
        found: &'static str,
        /// The expected nature.
        expected: &'static str,
    },
    /// A type does not belong to the container's type.
    #[error("type '{token}' belongs to container type '{owner}', not to '{container_type}' (the type of container '{container}')")]
    TypeNotInContainer {
        /// The type identifier.
        token: String,
        /// Its parent type.
        owner: String,
        /// The container.
        container: String,
        /// The container's type.
        container_type: String,
    },
    /// PajeDestroyContainer names a type that is not the container's.
    #[error("container '{container}' has type '{found}', not '{token}' as this event says")]
    WrongContainerType {
        /// The type identifier given.
        token: String,
        /// The container.
        container: String,
        /// Its actual type.
        found: String,
    },
    /// A link end has the wrong container type.
    #[error("container '{token}' has type '{found}'; the {end} of link type '{link}' must be of type '{expected}'")]
    WrongLinkEndType {
        /// The container identifier.
        token: String,
        /// Its type.
        found: String,
        /// "start" or "end".
        end: &'static str,
        /// The link type.
        link: String,
        /// The expected type.
        expected: String,
    },
    /// A name or identifier is taken.
    #[error("{what} '{token}' already exists")]
    AlreadyExists {
        /// What (container type, container, value…).
        what: &'static str,
        /// The identifier.
        token: String,
    },
    /// The reserved name `0`.
    #[error("the {what} '0' is reserved for the root")]
    ReservedZero {
        /// "type name" or "container name".
        what: &'static str,
    },
    /// Entity values cannot be defined for this type.
    #[error("cannot define value '{token}' for type '{ty}', which is a {kind} type; values belong to state, event and link types")]
    ValueForWrongType {
        /// The value name.
        token: String,
        /// The type.
        ty: String,
        /// Its nature.
        kind: &'static str,
    },
    /// An event earlier than the last one of the same type in the same container.
    #[error("trace is not time-ordered: time {time} is before {last}, the last time of type '{ty}' in container '{container}'; --sort-window SECONDS reorders a trace that is nearly in time order, --sort one in any order")]
    NotTimeOrdered {
        /// The time found.
        time: String,
        /// The last time recorded.
        last: String,
        /// Type name.
        ty: String,
        /// Container name.
        container: String,
    },
    /// An event older than the sort window lets the reader reorder.
    #[error("time {time} is before {passed}, the time of line {passed_line}, already passed on: the trace is out of time order by more than the sort window of {window} s; --sort-window {needed} (or more) reorders it, if no event further on is later by more (--sort sorts the whole trace, whatever its order)")]
    BeyondSortWindow {
        /// The time found.
        time: String,
        /// The time of the latest event passed on.
        passed: String,
        /// Its line.
        passed_line: u64,
        /// The window, in seconds.
        window: String,
        /// The smallest window that would have held the latest event back.
        needed: String,
    },
    /// A container destroyed before its last event.
    #[error("container events are not time-ordered: '{container}' is destroyed at {time}, before its last event at {last}")]
    DestroyNotTimeOrdered {
        /// Container name.
        container: String,
        /// The destruction time.
        time: String,
        /// Time of its last event.
        last: String,
    },
    /// Pop on an empty stack.
    #[error("PajePopState on type '{ty}' of container '{container}' whose state stack is empty")]
    PopEmpty {
        /// Type name.
        ty: String,
        /// Container name.
        container: String,
    },
    /// Add/Sub on a variable without value.
    #[error("{op} on variable '{ty}' of container '{container}', which has no value yet; expected a PajeSetVariable first")]
    VariableWithoutValue {
        /// PajeAddVariable or PajeSubVariable.
        op: &'static str,
        /// Type name.
        ty: String,
        /// Container name.
        container: String,
    },
    /// A link key already used by a completed link.
    #[error("link key '{key}' of type '{ty}' in container '{container}' was already used by another link")]
    KeyReused {
        /// The key.
        key: String,
        /// Type name.
        ty: String,
        /// Container name.
        container: String,
    },
    /// Start and end of a link disagree on the value.
    #[error("{this} has value '{found}' but the matching {other} (key '{key}') had '{expected}'")]
    LinkValueMismatch {
        /// This event kind.
        this: &'static str,
        /// The other end's kind.
        other: &'static str,
        /// The key.
        key: String,
        /// Value here.
        found: String,
        /// Value at the other end.
        expected: String,
    },
    /// A binary trace refers to something that does not exist (corrupt file).
    #[error("invalid {what} handle {index} (the binary trace is corrupt)")]
    BadHandle {
        /// What the handle designates.
        what: &'static str,
        /// The handle.
        index: u32,
    },
    /// A bug in trama itself (never expected).
    #[error("internal error in trama's simulator (please report it)")]
    Internal,
    /// Links without their other end when a container is destroyed.
    #[error("{count} incomplete link(s) in container '{container}' when it ends (use -z to ignore them):\n{list}")]
    IncompleteLinks {
        /// Container name.
        container: String,
        /// How many.
        count: usize,
        /// One line per link, in pj_dump form.
        list: String,
    },
}

/// A simulation error at a given line.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}: {kind}{}", show(contents))]
pub struct SimError {
    /// 1-based line (or record) of the event; 0 at the end of the trace.
    pub line: u64,
    /// What went wrong.
    pub kind: SimErrorKind,
    /// The words of the event, joined by spaces.
    pub contents: String,
}

fn show(contents: &str) -> String {
    if contents.is_empty() {
        String::new()
    } else {
        format!("\n  | {contents}")
    }
}
