//! A CSV table as fricsim writes them (`stats.csv`, `sweep.csv`): a header line and rows of
//! fields, a field quoted (RFC 4180) where it holds a comma, a quote or a line break.

use std::path::Path;

#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn read(path: &Path) -> Result<Table, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        Table::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<Table, String> {
        let mut records = records(text)?.into_iter();
        let header = records.next().ok_or("empty file: no header line")?;
        let rows: Vec<Vec<String>> = records.collect();
        if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.len() > header.len()) {
            return Err(format!("row {} has {} fields but the header has {}", i + 1, r.len(), header.len()));
        }
        Ok(Table { header, rows })
    }

    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// The column's values as numbers, NaN where a cell is empty, missing or not a number.
    pub fn numbers(&self, column: usize) -> Vec<f64> {
        self.rows.iter().map(|r| r.get(column).and_then(|s| s.parse().ok()).unwrap_or(f64::NAN)).collect()
    }
}

/// Split the text into records of fields.
fn records(text: &str) -> Result<Vec<Vec<String>>, String> {
    let (mut out, mut record, mut field) = (Vec::new(), Vec::new(), String::new());
    let mut chars = text.chars().peekable();
    let (mut quoted, mut line) = (false, 1);
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => {
                line += usize::from(c == '\n');
                field.push(c);
            }
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                line += 1;
                record.push(std::mem::take(&mut field));
                out.push(std::mem::take(&mut record));
            }
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return Err(format!("line {line}: a quoted field is not closed"));
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        out.push(record);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_fields_and_missing_cells() {
        let t = Table::parse("a,b,c\n1,\"x, \"\"y\"\"\",3\n4,5\n").unwrap();
        assert_eq!(t.header, ["a", "b", "c"]);
        assert_eq!(t.rows[0], ["1", "x, \"y\"", "3"]);
        let c = t.numbers(2);
        assert_eq!(c[0], 3.0);
        assert!(c[1].is_nan());
        assert!(Table::parse("a\n\"open\n").is_err());
        assert!(Table::parse("a,b\n1,2,3\n").is_err());
        assert!(Table::parse("").is_err());
    }
}
