//! MCP protocol revisions and the connection's era: the `initialize` handshake (2024-11-05 to
//! 2025-11-25), the stateless 2026-07-28 revision (`server/discover` and per-request `_meta`),
//! and how results are shaped for each.
//!
//! The server is *dual-era*: the client's opening decides. An `initialize` handshake selects
//! the legacy era, scoped to this connection, at the negotiated revision. A request carrying
//! `_meta["io.modelcontextprotocol/protocolVersion"]` (such as the `server/discover` probe)
//! selects the modern era, where every request carries its own version and capabilities.
//! After that, requests of the other era are refused with an error that names what is
//! served, as the 2026-07-28 revision's compatibility rules describe.

use serde_json::{Map, Value, json};

use super::jsonrpc::{INVALID_PARAMS, INVALID_REQUEST, RpcError, UNSUPPORTED_PROTOCOL_VERSION};
use crate::error::{quoted, shown};

/// The server's name in `serverInfo`.
pub(crate) const SERVER_NAME: &str = "termloom";
/// The `_meta` key of the per-request protocol version (2026-07-28).
pub(crate) const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key of the per-request client capabilities (2026-07-28).
pub(crate) const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// The `_meta` key of the server's identity on results (2026-07-28).
pub(crate) const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// How long clients may cache the tool list and the discovery result, in milliseconds.
const CACHE_TTL_MS: u64 = 3_600_000;

/// What the server tells a model about using it (`instructions`).
pub(crate) const INSTRUCTIONS: &str = "termloom runs programs in real headless terminals. \
Start one with terminal_start (a shell command line, an argv, or nothing for an interactive shell), \
type into it with terminal_send (text, or keys such as <Enter>, <Esc>, <C-c>, <Up> for full-screen \
programs like vim, less or htop), and read its new output or its screen with terminal_read. \
Run a shell command and get its output and exit code with terminal_run. Every call that reads can \
first wait for a condition (text, a regex, text on the screen, quiet output, the shell prompt, \
the program waiting for input, or its exit): use these waits instead of sleeping. Close each \
session with terminal_close when you are done.";

/// A protocol revision the server speaks, oldest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Revision {
    /// 2024-11-05: the first revision.
    V2024_11_05,
    /// 2025-03-26: tool annotations, JSON-RPC batches (served here from 2024-11-05, whose
    /// messages are JSON-RPC 2.0's; removed in 2025-06-18).
    V2025_03_26,
    /// 2025-06-18: structured tool output (`outputSchema`, `structuredContent`), titles.
    V2025_06_18,
    /// 2025-11-25: the last handshake revision.
    V2025_11_25,
    /// 2026-07-28: stateless; per-request `_meta`, `server/discover`, `resultType`.
    V2026_07_28,
}

/// Every revision, newest first.
const REVISIONS: [(Revision, &str); 5] = [
    (Revision::V2026_07_28, "2026-07-28"),
    (Revision::V2025_11_25, "2025-11-25"),
    (Revision::V2025_06_18, "2025-06-18"),
    (Revision::V2025_03_26, "2025-03-26"),
    (Revision::V2024_11_05, "2024-11-05"),
];

impl Revision {
    /// The newest revision reached through `initialize`.
    pub(crate) const LATEST_HANDSHAKE: Revision = Revision::V2025_11_25;

    /// Parses a revision's date string.
    pub(crate) fn parse(text: &str) -> Option<Revision> {
        REVISIONS.iter().find(|(_, name)| *name == text).map(|(revision, _)| *revision)
    }

    /// The revision's date string.
    pub(crate) fn as_str(self) -> &'static str {
        REVISIONS.iter().find(|(revision, _)| *revision == self).map_or("?", |(_, name)| name)
    }

    /// Whether the revision is stateless (per-request `_meta`, no handshake).
    pub(crate) fn is_modern(self) -> bool {
        self >= Revision::V2026_07_28
    }
}

/// Every revision's string, newest first.
pub(crate) fn all_versions() -> Vec<&'static str> {
    REVISIONS.iter().map(|(_, name)| *name).collect()
}

/// The stateless revisions' strings, newest first.
pub(crate) fn modern_versions() -> Vec<&'static str> {
    REVISIONS.iter().filter(|(r, _)| r.is_modern()).map(|(_, name)| *name).collect()
}

/// The server's identity.
pub(crate) fn server_info(revision: Revision) -> Value {
    let mut info = json!({ "name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION") });
    if revision >= Revision::V2025_06_18 {
        info["title"] = json!("termloom terminal sessions");
    }
    info
}

fn capabilities() -> Value {
    json!({ "tools": { "listChanged": false } })
}

/// Which era the connection speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Era {
    /// Neither `initialize` nor a request with per-request `_meta` has been accepted yet.
    Undecided,
    /// `initialize` negotiated this revision.
    Legacy(Revision),
    /// Requests carry their own revision in `_meta`.
    Modern,
}

/// The revision a request is served under, once its era checks passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Served {
    /// The revision.
    pub revision: Revision,
    /// The client declared it can ask its person (elicitation) by a form.
    pub elicitation: bool,
    /// The client declared URL-mode elicitation (2025-11-25 on), the one way a secret is asked.
    pub url: bool,
}

impl Served {
    /// Shapes a result for the revision: stateless results carry `resultType` and the server's
    /// identity in `_meta`.
    pub(crate) fn finish(self, mut result: Value) -> Value {
        if self.revision.is_modern()
            && let Value::Object(fields) = &mut result
        {
            fields.entry("resultType").or_insert_with(|| json!("complete"));
            let meta = fields.entry("_meta").or_insert_with(|| json!({}));
            if let Value::Object(meta) = meta {
                meta.insert(META_SERVER_INFO.into(), server_info(self.revision));
            }
        }
        result
    }

    /// Adds the caching hints a stateless list or discovery result must carry.
    pub(crate) fn cacheable(self, mut result: Value) -> Value {
        if self.revision.is_modern() {
            result["ttlMs"] = json!(CACHE_TTL_MS);
            result["cacheScope"] = json!("public");
        }
        result
    }
}

/// The connection's protocol state, owned by the thread that reads requests.
pub(crate) struct Protocol {
    era: Era,
    /// The client declared the elicitation capability in `initialize`, by forms.
    elicitation: bool,
    /// … and by URL.
    url: bool,
}

/// Whether client capabilities declare elicitation by a form, the one kind termloom asks, in a
/// revision that has it: `form`, or neither `form` nor `url` (2025-11-25 named the modes; an
/// empty `elicitation` is forms alone). A client of URL elicitation alone is sent no form.
fn elicits(revision: Revision, capabilities: Option<&Value>) -> bool {
    let modes = capabilities.and_then(|c| c.get("elicitation")).and_then(Value::as_object);
    revision >= Revision::V2025_06_18
        && modes.is_some_and(|modes| modes.contains_key("form") || !modes.contains_key("url"))
}

/// Whether client capabilities declare URL-mode elicitation (`elicitation.url`), in a revision
/// that has it (2025-11-25 on).
fn elicits_url(revision: Revision, capabilities: Option<&Value>) -> bool {
    let modes = capabilities.and_then(|c| c.get("elicitation")).and_then(Value::as_object);
    revision >= Revision::V2025_11_25
        && modes.and_then(|modes| modes.get("url")).is_some_and(|url| !url.is_null())
}

fn meta_of(params: Option<&Map<String, Value>>) -> Option<&Map<String, Value>> {
    params?.get("_meta")?.as_object()
}

/// Whether a request carries the stateless envelope (its version key is the signal).
pub(crate) fn has_envelope(params: Option<&Map<String, Value>>) -> bool {
    meta_of(params).is_some_and(|meta| meta.contains_key(META_PROTOCOL_VERSION))
}

fn unsupported(requested: &str, supported: Vec<&'static str>) -> RpcError {
    RpcError::new(
        UNSUPPORTED_PROTOCOL_VERSION,
        format!(
            "unsupported protocol version {}; this server speaks {}",
            quoted(requested),
            supported.join(", ")
        ),
    )
    .with_data(json!({ "supported": supported, "requested": shown(requested) }))
}

impl Protocol {
    /// A connection where nothing was negotiated yet.
    pub(crate) fn new() -> Protocol {
        Protocol { era: Era::Undecided, elicitation: false, url: false }
    }

    /// The era.
    #[cfg(test)]
    pub(crate) fn era(&self) -> Era {
        self.era
    }

    /// Answers `initialize`: negotiates a handshake revision and selects the legacy era.
    pub(crate) fn initialize(
        &mut self,
        params: Option<&Map<String, Value>>,
    ) -> Result<(Served, Value), RpcError> {
        let requested = params.and_then(|p| p.get("protocolVersion"));
        let Some(Value::String(requested)) = requested else {
            return Err(RpcError::new(
                INVALID_PARAMS,
                "initialize needs params.protocolVersion (a revision date such as \"2025-11-25\"), params.capabilities and params.clientInfo",
            ));
        };
        for field in ["capabilities", "clientInfo"] {
            if let Some(value) = params.and_then(|p| p.get(field))
                && !value.is_object()
            {
                return Err(RpcError::new(
                    INVALID_PARAMS,
                    format!("initialize: params.{field} must be an object"),
                ));
            }
        }
        match self.era {
            Era::Modern => {
                return Err(RpcError::new(
                    UNSUPPORTED_PROTOCOL_VERSION,
                    "this connection serves the stateless 2026-07-28 protocol (opened with per-request _meta); the initialize handshake is not accepted on it",
                )
                .with_data(json!({ "supported": modern_versions(), "requested": shown(requested) })));
            }
            Era::Legacy(revision) => {
                return Err(RpcError::new(
                    INVALID_REQUEST,
                    format!(
                        "the connection is already initialized (protocol {}); initialize only once",
                        revision.as_str()
                    ),
                ));
            }
            Era::Undecided => {}
        }
        let revision = match Revision::parse(requested) {
            Some(revision) if !revision.is_modern() => revision,
            _ => Revision::LATEST_HANDSHAKE,
        };
        self.era = Era::Legacy(revision);
        let declared = params.and_then(|p| p.get("capabilities"));
        self.elicitation = elicits(revision, declared);
        self.url = elicits_url(revision, declared);
        let result = json!({
            "protocolVersion": revision.as_str(),
            "capabilities": capabilities(),
            "serverInfo": server_info(revision),
            "instructions": INSTRUCTIONS,
        });
        Ok((Served { revision, elicitation: self.elicitation, url: self.url }, result))
    }

    /// The revision to serve a request (other than `initialize` and `ping`) under, checking
    /// its era; a request with a valid stateless envelope selects the modern era.
    pub(crate) fn admit(
        &mut self,
        method: &str,
        params: Option<&Map<String, Value>>,
    ) -> Result<Served, RpcError> {
        if has_envelope(params) {
            if let Era::Legacy(revision) = self.era {
                return Err(RpcError::new(
                    INVALID_REQUEST,
                    format!(
                        "this connection negotiated protocol {} with initialize; requests carrying the 2026-07-28 per-request _meta are not accepted on it",
                        revision.as_str()
                    ),
                ));
            }
            let meta = meta_of(params).expect("has an envelope");
            let revision = check_envelope(meta)?;
            self.era = Era::Modern;
            let capabilities = meta.get(META_CLIENT_CAPABILITIES);
            let elicitation = elicits(revision, capabilities);
            let url = elicits_url(revision, capabilities);
            return Ok(Served { revision, elicitation, url });
        }
        match self.era {
            Era::Legacy(revision) if method == "server/discover" => Err(RpcError::new(
                super::jsonrpc::METHOD_NOT_FOUND,
                format!(
                    "server/discover belongs to the 2026-07-28 protocol; this connection negotiated {} with initialize",
                    revision.as_str()
                ),
            )),
            Era::Legacy(revision) => {
                Ok(Served { revision, elicitation: self.elicitation, url: self.url })
            }
            Era::Modern => Err(missing_envelope(method)),
            Era::Undecided if method == "server/discover" => Err(missing_envelope(method)),
            Era::Undecided => Err(RpcError::new(
                INVALID_REQUEST,
                format!(
                    "{method} before initialization: send initialize first (protocol revisions 2024-11-05 to 2025-11-25), or carry {META_PROTOCOL_VERSION} and {META_CLIENT_CAPABILITIES} in params._meta (2026-07-28)"
                ),
            )),
        }
    }

    /// Whether a JSON-RPC batch (an array of messages) may be served now: only on a
    /// connection that negotiated 2024-11-05 or 2025-03-26 with `initialize`. MCP 2025-06-18
    /// removed batches, and the stateless 2026-07-28 revision has none; before `initialize`
    /// no revision is agreed, and `initialize` itself must not be in a batch. The error is the
    /// `Invalid Request` the whole batch is answered with.
    pub(crate) fn admit_batch(&self) -> Result<(), RpcError> {
        let why = match self.era {
            Era::Legacy(revision) if revision < Revision::V2025_06_18 => return Ok(()),
            Era::Legacy(revision) => format!(
                "this connection negotiated protocol {}, which has no JSON-RPC batches (MCP removed them in 2025-06-18)",
                revision.as_str()
            ),
            Era::Modern => {
                "the stateless 2026-07-28 protocol this connection serves has no JSON-RPC batches"
                    .to_owned()
            }
            Era::Undecided => "a JSON-RPC batch before initialization: batches are served only after initialize negotiated 2024-11-05 or 2025-03-26".to_owned(),
        };
        Err(RpcError::new(
            INVALID_REQUEST,
            format!("{why}; nothing in the batch was run: send each message on a line of its own"),
        ))
    }

    /// Answers `server/discover` (already admitted in the modern era).
    pub(crate) fn discover(served: Served) -> Value {
        served.cacheable(json!({
            "supportedVersions": modern_versions(),
            "capabilities": capabilities(),
            "serverInfo": server_info(served.revision),
            "instructions": INSTRUCTIONS,
        }))
    }
}

fn missing_envelope(method: &str) -> RpcError {
    RpcError::new(
        INVALID_PARAMS,
        format!(
            "{method}: params._meta must carry {META_PROTOCOL_VERSION} (\"2026-07-28\") and {META_CLIENT_CAPABILITIES} (an object) on every request of the stateless protocol"
        ),
    )
}

/// Checks a stateless request's `_meta` and returns its revision.
fn check_envelope(meta: &Map<String, Value>) -> Result<Revision, RpcError> {
    let version = match meta.get(META_PROTOCOL_VERSION) {
        Some(Value::String(version)) => version,
        _ => {
            return Err(RpcError::new(
                INVALID_PARAMS,
                format!(
                    "params._meta[{META_PROTOCOL_VERSION:?}] must be a string such as \"2026-07-28\""
                ),
            ));
        }
    };
    let revision = match Revision::parse(version) {
        Some(revision) if revision.is_modern() => revision,
        _ => return Err(unsupported(version, all_versions())),
    };
    if !meta.get(META_CLIENT_CAPABILITIES).is_some_and(Value::is_object) {
        return Err(RpcError::new(
            INVALID_PARAMS,
            format!(
                "params._meta[{META_CLIENT_CAPABILITIES:?}] is required on every 2026-07-28 request and must be an object ({{}} declares none)"
            ),
        ));
    }
    Ok(revision)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn negotiates_handshake_revisions() {
        for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
            let mut protocol = Protocol::new();
            let p = params(
                json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
            );
            let (served, result) = protocol.initialize(Some(&p)).unwrap();
            assert_eq!(result["protocolVersion"], version);
            assert_eq!(served.revision.as_str(), version);
            assert!(protocol.admit("tools/list", None).is_ok());
        }
        for version in ["1999-01-01", "2026-07-28"] {
            let mut protocol = Protocol::new();
            let p =
                params(json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {}}));
            assert_eq!(protocol.initialize(Some(&p)).unwrap().1["protocolVersion"], "2025-11-25");
        }
    }

    #[test]
    fn the_opening_decides_the_era() {
        let envelope = params(json!({"_meta": {
            META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: {}
        }}));
        let mut protocol = Protocol::new();
        assert_eq!(protocol.admit("tools/list", None).unwrap_err().code, INVALID_REQUEST);
        assert!(protocol.admit("server/discover", Some(&envelope)).unwrap().revision.is_modern());
        assert_eq!(protocol.era(), Era::Modern);
        assert_eq!(protocol.admit("tools/list", None).unwrap_err().code, INVALID_PARAMS);
        let init =
            params(json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {}}));
        let err = protocol.initialize(Some(&init)).unwrap_err();
        assert_eq!(err.code, UNSUPPORTED_PROTOCOL_VERSION);
        let old = params(json!({"_meta": {
            META_PROTOCOL_VERSION: "2025-06-18", META_CLIENT_CAPABILITIES: {}
        }}));
        let err = protocol.admit("tools/list", Some(&old)).unwrap_err();
        assert_eq!(err.code, UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(err.data.unwrap()["requested"], "2025-06-18");
        let no_caps = params(json!({"_meta": { META_PROTOCOL_VERSION: "2026-07-28" }}));
        assert_eq!(protocol.admit("tools/list", Some(&no_caps)).unwrap_err().code, INVALID_PARAMS);
    }

    #[test]
    fn batches_are_served_only_in_revisions_that_have_them() {
        let mut protocol = Protocol::new();
        assert_eq!(protocol.admit_batch().unwrap_err().code, INVALID_REQUEST);
        for (version, allowed) in [
            ("2024-11-05", true),
            ("2025-03-26", true),
            ("2025-06-18", false),
            ("2025-11-25", false),
        ] {
            let mut protocol = Protocol::new();
            let p =
                params(json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {}}));
            protocol.initialize(Some(&p)).unwrap();
            assert_eq!(protocol.admit_batch().is_ok(), allowed, "{version}");
        }
        let envelope = params(json!({"_meta": {
            META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: {}
        }}));
        protocol.admit("server/discover", Some(&envelope)).unwrap();
        let error = protocol.admit_batch().unwrap_err();
        assert!(error.message.contains("2026-07-28"), "{}", error.message);
    }

    #[test]
    fn stateless_results_carry_result_type_and_server_info() {
        let served = Served { revision: Revision::V2026_07_28, elicitation: false, url: false };
        let result = served.finish(Protocol::discover(served));
        assert_eq!(result["resultType"], "complete");
        assert_eq!(result["supportedVersions"], json!(["2026-07-28"]));
        assert_eq!(result["_meta"][META_SERVER_INFO]["name"], SERVER_NAME);
        assert_eq!(result["cacheScope"], "public");
        let legacy = Served { revision: Revision::V2025_11_25, elicitation: false, url: false };
        assert_eq!(legacy.finish(json!({})), json!({}));
    }
}
