//! Retrieving the best documents for a planned query: exhaustively or in
//! two phases on a large index, by filters alone, by meaning, or like a
//! given work.

pub mod listing;
pub mod meaning;
pub mod seeded;
pub mod similar;
pub mod two_phase;
