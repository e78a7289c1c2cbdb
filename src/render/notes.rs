//! The notes a search's rewrites make, as one line each: written to stderr
//! by `search`, and in the `notes` of the server's and the MCP tool's
//! answers.

use crate::search::Rewrites;

/// `searched for pipeline (not pipelne)`, for the words spelling repaired.
pub fn corrections_line(rewrites: &Rewrites) -> Option<String> {
    if rewrites.corrections.is_empty() {
        return None;
    }
    let fixes: Vec<String> = rewrites
        .corrections
        .iter()
        .map(|(from, to)| format!("{to} (not {from})"))
        .collect();
    Some(format!("searched for {}", fixes.join(", ")))
}
