//! The one shape shared by option and step tables: a name, an optional value, a help text and
//! an action. Parsing and the help page both read these tables, so adding an option or a step
//! is one table entry.

/// One named command-line item (an option or a step) and what to do with it.
pub(super) struct Def<A: 'static> {
    /// The name as typed, with its dashes: `--send`.
    pub name: &'static str,
    /// Another name for it (`-h`), if any.
    pub alias: Option<&'static str>,
    /// The placeholder of its value in the help (`TEXT`), or `None` for a flag.
    pub value: Option<&'static str>,
    /// The help section it is listed under.
    pub section: &'static str,
    /// What it does: its lines are joined and wrapped again to the help page's width.
    pub help: &'static str,
    /// What parsing does with it.
    pub action: A,
}

impl<A> Def<A> {
    /// Whether `name` names this item.
    pub(super) fn is_named(&self, name: &str) -> bool {
        self.name == name || self.alias == Some(name)
    }

    /// How it is written in the help: `--send TEXT`, `-h, --help`.
    pub(super) fn signature(&self) -> String {
        let mut text = match self.alias {
            Some(alias) => format!("{alias}, {}", self.name),
            None => self.name.to_owned(),
        };
        if let Some(value) = self.value {
            text.push(' ');
            text.push_str(value);
        }
        text
    }
}

/// The item of `table` named `name`.
pub(super) fn find<'t, A>(table: &'t [Def<A>], name: &str) -> Option<&'t Def<A>> {
    table.iter().find(|def| def.is_named(name))
}

/// The distinct sections of `table`, in the order they first appear.
pub(super) fn sections<A>(table: &[Def<A>]) -> Vec<&'static str> {
    let mut sections: Vec<&'static str> = Vec::new();
    for def in table {
        if !sections.contains(&def.section) {
            sections.push(def.section);
        }
    }
    sections
}
