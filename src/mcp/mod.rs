//! A Model Context Protocol server (rmcp's JSON-RPC 2.0) for a table of
//! read-only tools. Each tool reads its JSON arguments and answers a JSON
//! object; whatever goes wrong in one call (a bad argument, a failing
//! search, a panic) is that call's tool error, and the server goes on.

pub mod inputs;
mod stdio;

use std::io::Write;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tokio::sync::{Semaphore, mpsc};

pub use stdio::serve;

use crate::error::Error;

/// What a tool does with its arguments; `err` gets its notes and warnings.
type Work = dyn Fn(Map<String, Value>, &mut dyn Write) -> Result<Value, Error> + Send + Sync;

/// A tool: its name, what it is for, its input's and answer's schemas, and
/// its work (run on a blocking thread).
pub struct Tool {
    name: &'static str,
    description: &'static str,
    input: Map<String, Value>,
    output: Map<String, Value>,
    work: Box<Work>,
}

impl Tool {
    /// A tool whose arguments are read as `I` (named in its schema), whose
    /// answers `output` describes.
    pub fn new<I: DeserializeOwned + JsonSchema>(
        name: &'static str,
        description: &'static str,
        output: Value,
        work: impl Fn(I, &mut dyn Write) -> Result<Value, Error> + Send + Sync + 'static,
    ) -> Tool {
        Tool {
            name,
            description,
            input: inputs::schema::<I>(),
            output: output.as_object().cloned().unwrap_or_default(),
            work: Box::new(move |arguments, err| work(inputs::read(name, arguments)?, err)),
        }
    }

    fn listed(&self) -> rmcp::model::Tool {
        rmcp::model::Tool::new(self.name, self.description, self.input.clone())
            .with_raw_output_schema(Arc::new(self.output.clone()))
            .with_annotations(
                ToolAnnotations::new()
                    .read_only(true)
                    .idempotent(true)
                    .open_world(false),
            )
    }
}

/// The server's state: the tools, the calls that may run at once, and
/// where the calls' notes go (standard error, written by `stdio`).
struct Server {
    tools: Arc<[Tool]>,
    running: Semaphore,
    log: mpsc::UnboundedSender<Vec<u8>>,
    instructions: &'static str,
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                env!("CARGO_PKG_NAME"),
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(self.instructions)
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.tools.iter().map(Tool::listed).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(index) = self.tools.iter().position(|t| t.name == request.name) else {
            let names: Vec<&str> = self.tools.iter().map(|t| t.name).collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "no tool named `{}`: the tools are {}",
                    request.name,
                    names.join(", ")
                ),
                None,
            ));
        };
        let arguments = request.arguments.unwrap_or_default();
        // Calls past the cores wait here rather than take a thread each.
        let _permit = (self.running.acquire().await)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let tools = Arc::clone(&self.tools);
        let done = tokio::task::spawn_blocking(move || {
            let mut notes = Vec::new();
            let answer =
                crate::diagnostic::catch_panic(|| (tools[index].work)(arguments, &mut notes));
            (answer, notes)
        })
        .await;
        let answer = match done {
            Ok((answer, notes)) => {
                if !notes.is_empty() {
                    // Closed only once the server is gone.
                    let _ = self.log.send(notes);
                }
                answer
            }
            Err(join) => Err(join.to_string()),
        };
        let failed = |message: String| CallToolResult::error(vec![ContentBlock::text(message)]);
        Ok(match answer {
            Ok(Ok(value)) => CallToolResult::structured(value),
            Ok(Err(e)) => failed(e.to_string()),
            Err(panic) => failed(format!(
                "internal error ({panic}); if the index is damaged, `distml-search index` rebuilds it"
            )),
        }
        .into())
    }
}
