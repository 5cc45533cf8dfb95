//! The function's answer: the list to write, the findings, and the exit code.

use crate::diag::Diagnostic;
use crate::exit::Exit;
use crate::resource_list::ResourceList;

#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    pub list: ResourceList,
    pub diagnostics: Vec<Diagnostic>,
    pub exit: Exit,
}
