//! Text templates of a mapping: literal text with `{placeholder}`s filled
//! from the file header, the event's values and, for link keys, the link.

use std::fmt::Write as _;

use trama_rastro::rst::{TypeCode, Value};

/// What a placeholder stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Var {
    /// First identifier of the header event.
    Id1,
    /// Second identifier of the header event.
    Id2,
    /// Host name of the header event.
    Host,
    /// The event's type id.
    Type,
    /// The `index`-th value of type `code` (counted among that type only).
    Value(TypeCode, usize),
    /// Link keys: the sending side's identity.
    Src,
    /// Link keys: the receiving side's identity.
    Dst,
    /// Link keys: the link's value.
    LinkValue,
    /// Link keys: the ordinal of the message on its channel.
    Seq,
}

#[derive(Clone, Debug, PartialEq)]
enum Piece {
    Text(String),
    Var(Var),
}

/// A parsed template.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Template {
    pieces: Vec<Piece>,
    source: String,
}

/// Where a template is used, which decides the placeholders it may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Container names: header placeholders only.
    Header,
    /// Values, partners, extras: header and event values.
    Event,
    /// Link keys: everything, with `src`, `dst`, `value`, `seq`.
    Key,
}

/// The values a template is rendered with.
pub(crate) struct Ctx<'v, 'a> {
    pub id1: u64,
    pub id2: u64,
    pub host: &'v str,
    pub type_id: u16,
    pub values: &'v [Value<'a>],
    pub link: Option<LinkCtx<'v>>,
}

/// The link placeholders of a key.
#[derive(Clone, Copy)]
pub(crate) struct LinkCtx<'v> {
    pub src: &'v str,
    pub dst: &'v str,
    pub value: &'v str,
    /// `None` renders `{seq}` as nothing (the channel of the message).
    pub seq: Option<u64>,
}

/// A placeholder the event cannot fill: the value is missing.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Missing {
    pub placeholder: String,
}

fn parse_var(name: &str, scope: Scope) -> Result<Var, String> {
    let var = match name {
        "id1" => Var::Id1,
        "id2" => Var::Id2,
        "host" => Var::Host,
        "type" => Var::Type,
        "src" => Var::Src,
        "dst" => Var::Dst,
        "value" => Var::LinkValue,
        "seq" => Var::Seq,
        _ => {
            let Some((kind, index)) = name.split_once('.') else {
                return Err(format!("unknown placeholder {{{name}}}"));
            };
            let code = match kind {
                "str" => TypeCode::String,
                "f64" => TypeCode::F64,
                "f32" => TypeCode::F32,
                "u64" => TypeCode::U64,
                "u32" => TypeCode::U32,
                "u16" => TypeCode::U16,
                "u8" => TypeCode::U8,
                _ => return Err(format!("unknown placeholder {{{name}}}")),
            };
            let index: usize = index
                .parse()
                .map_err(|_| format!("placeholder {{{name}}}: '{index}' is not an index"))?;
            Var::Value(code, index)
        }
    };
    let allowed = match var {
        Var::Id1 | Var::Id2 | Var::Host => true,
        Var::Type | Var::Value(..) => scope != Scope::Header,
        Var::Src | Var::Dst | Var::LinkValue | Var::Seq => scope == Scope::Key,
    };
    if !allowed {
        let place = match scope {
            Scope::Header => "a container name",
            Scope::Event => "this text (only link keys have it)",
            Scope::Key => "a key",
        };
        return Err(format!("placeholder {{{name}}} cannot be used in {place}"));
    }
    Ok(var)
}

impl Template {
    /// Parses `text`; `{{` and `}}` stand for braces.
    pub fn parse(text: &str, scope: Scope) -> Result<Template, String> {
        let mut pieces = Vec::new();
        let mut lit = String::new();
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match c {
                '{' if chars.peek().map(|p| p.1) == Some('{') => {
                    chars.next();
                    lit.push('{');
                }
                '}' if chars.peek().map(|p| p.1) == Some('}') => {
                    chars.next();
                    lit.push('}');
                }
                '{' => {
                    let rest = &text[i + 1..];
                    let Some(end) = rest.find('}') else {
                        return Err(format!("'{{' without '}}' in \"{text}\""));
                    };
                    let var = parse_var(rest[..end].trim(), scope)?;
                    if !lit.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut lit)));
                    }
                    pieces.push(Piece::Var(var));
                    for _ in 0..end + 1 {
                        chars.next();
                    }
                }
                '}' => return Err(format!("'}}' without '{{' in \"{text}\"")),
                _ => lit.push(c),
            }
        }
        if !lit.is_empty() {
            pieces.push(Piece::Text(lit));
        }
        Ok(Template {
            pieces,
            source: text.to_string(),
        })
    }

    /// The text it was parsed from.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Does it use this placeholder?
    pub fn uses(&self, var: Var) -> bool {
        self.pieces.contains(&Piece::Var(var))
    }

    /// The text when it has no placeholder.
    pub fn literal(&self) -> Option<&str> {
        match self.pieces.as_slice() {
            [] => Some(""),
            [Piece::Text(t)] => Some(t),
            _ => None,
        }
    }

    /// Renders the template, `Err` naming the first placeholder the
    /// context cannot fill.
    pub fn render(&self, ctx: &Ctx<'_, '_>) -> Result<String, Missing> {
        let mut out = String::new();
        for p in &self.pieces {
            match p {
                Piece::Text(t) => out.push_str(t),
                Piece::Var(v) => push_var(&mut out, *v, ctx)?,
            }
        }
        Ok(out)
    }
}

fn nth<'a>(values: &[Value<'a>], code: TypeCode, index: usize) -> Option<Value<'a>> {
    values
        .iter()
        .filter(|v| v.code() == code)
        .nth(index)
        .copied()
}

fn push_var(out: &mut String, var: Var, ctx: &Ctx<'_, '_>) -> Result<(), Missing> {
    let link = |f: fn(&LinkCtx<'_>) -> String| ctx.link.as_ref().map(f);
    let text: Option<String> = match var {
        Var::Id1 => Some(ctx.id1.to_string()),
        Var::Id2 => Some(ctx.id2.to_string()),
        Var::Host => Some(ctx.host.to_string()),
        Var::Type => Some(ctx.type_id.to_string()),
        Var::Src => link(|l| l.src.to_string()),
        Var::Dst => link(|l| l.dst.to_string()),
        Var::LinkValue => link(|l| l.value.to_string()),
        Var::Seq => link(|l| l.seq.map(|s| s.to_string()).unwrap_or_default()),
        Var::Value(code, index) => {
            if let Some(v) = nth(ctx.values, code, index) {
                match v {
                    Value::Str(s) => out.push_str(&String::from_utf8_lossy(s)),
                    Value::F64(x) => write!(out, "{x}").expect("string"),
                    Value::F32(x) => write!(out, "{x}").expect("string"),
                    Value::U64(x) => write!(out, "{x}").expect("string"),
                    Value::U32(x) => write!(out, "{x}").expect("string"),
                    Value::U16(x) => write!(out, "{x}").expect("string"),
                    Value::U8(x) => write!(out, "{x}").expect("string"),
                }
                return Ok(());
            }
            None
        }
    };
    match text {
        Some(t) => {
            out.push_str(&t);
            Ok(())
        }
        None => Err(Missing {
            placeholder: var_name(var),
        }),
    }
}

/// The placeholder as written (`{u32.1}`).
pub(crate) fn var_name(var: Var) -> String {
    match var {
        Var::Id1 => "{id1}".into(),
        Var::Id2 => "{id2}".into(),
        Var::Host => "{host}".into(),
        Var::Type => "{type}".into(),
        Var::Src => "{src}".into(),
        Var::Dst => "{dst}".into(),
        Var::LinkValue => "{value}".into(),
        Var::Seq => "{seq}".into(),
        Var::Value(code, i) => {
            let k = match code {
                TypeCode::String => "str",
                TypeCode::F64 => "f64",
                TypeCode::F32 => "f32",
                TypeCode::U64 => "u64",
                TypeCode::U32 => "u32",
                TypeCode::U16 => "u16",
                TypeCode::U8 => "u8",
            };
            format!("{{{k}.{i}}}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx<'v, 'a>(values: &'v [Value<'a>]) -> Ctx<'v, 'a> {
        Ctx {
            id1: 3,
            id2: 0,
            host: "caligula",
            type_id: 5000,
            values,
            link: None,
        }
    }

    #[test]
    fn renders_header_and_values_by_type() {
        let vals = [Value::U64(7), Value::U32(1), Value::U32(40)];
        let t = Template::parse(
            "rank{id1}@{host}: {u32.1}/{u64.0} #{type} {{x}}",
            Scope::Event,
        )
        .unwrap();
        assert_eq!(
            t.render(&ctx(&vals)).unwrap(),
            "rank3@caligula: 40/7 #5000 {x}"
        );
        let missing = Template::parse("{u32.2}", Scope::Event).unwrap();
        assert_eq!(
            missing.render(&ctx(&vals)),
            Err(Missing {
                placeholder: "{u32.2}".into()
            })
        );
    }

    #[test]
    fn scopes_and_syntax_errors() {
        assert!(Template::parse("{u32.0}", Scope::Header)
            .unwrap_err()
            .contains("container name"));
        assert!(Template::parse("{seq}", Scope::Event).is_err());
        assert!(Template::parse("{u33.0}", Scope::Event)
            .unwrap_err()
            .contains("unknown placeholder"));
        assert!(Template::parse("a{id1", Scope::Event).is_err());
        assert!(Template::parse("a}b", Scope::Event).is_err());
        assert_eq!(
            Template::parse("plain", Scope::Key).unwrap().literal(),
            Some("plain")
        );
    }
}
