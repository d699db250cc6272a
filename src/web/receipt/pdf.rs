//! The receipt as a PDF: the same words and amounts as the printable page (`ReceiptPage`),
//! laid out on A4 in the standard fonts Helvetica and Helvetica-Bold. Every PDF reader has
//! them, so nothing is embedded and a receipt is a few kilobytes. Those fonts are written in
//! Windows-1252 (`WinAnsiEncoding`), which covers Western European text: the shop's languages
//! and names written in them. A character outside it is written as `?`; the printable page
//! shows every character as issued.

use pdf_writer::{Content, Finish, Name, Pdf, Rect, Ref, Str, TextStr};

use super::ReceiptPage;
use super::metrics::{HELVETICA, HELVETICA_BOLD};
use crate::i18n;

const PAGE_WIDTH: f32 = 595.0;
const PAGE_HEIGHT: f32 = 842.0;
const MARGIN: f32 = 56.0;
const RIGHT: f32 = PAGE_WIDTH - MARGIN;
/// Space kept between two table columns.
const GUTTER: f32 = 8.0;
const BODY: f32 = 10.0;
const SMALL: f32 = 8.5;
const LEADING: f32 = 1.35;
const GREY: f32 = 0.35;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Face {
    Regular,
    Bold,
}

impl Face {
    fn resource(self) -> Name<'static> {
        match self {
            Self::Regular => Name(b"F1"),
            Self::Bold => Name(b"F2"),
        }
    }

    fn widths(self) -> &'static [u16; 224] {
        match self {
            Self::Regular => &HELVETICA,
            Self::Bold => &HELVETICA_BOLD,
        }
    }
}

/// The Windows-1252 code of `c`: Latin-1 as it is, the typographic marks the code page has at
/// 0x80–0x9F, spaces that do not break as a plain no-break space, the minus sign as a hyphen.
fn win_ansi(c: char) -> u8 {
    match c {
        ' '..='~' => c as u8,
        '\u{a0}'..='\u{ff}' => c as u8,
        '\u{2007}' | '\u{2009}' | '\u{202f}' => 0xa0,
        '\u{2212}' | '\u{2010}' | '\u{2011}' => b'-',
        '€' => 0x80,
        '‚' => 0x82,
        'ƒ' => 0x83,
        '„' => 0x84,
        '…' => 0x85,
        '†' => 0x86,
        '‡' => 0x87,
        'ˆ' => 0x88,
        '‰' => 0x89,
        'Š' => 0x8a,
        '‹' => 0x8b,
        'Œ' => 0x8c,
        'Ž' => 0x8e,
        '‘' => 0x91,
        '’' => 0x92,
        '“' => 0x93,
        '”' => 0x94,
        '•' => 0x95,
        '–' => 0x96,
        '—' => 0x97,
        '˜' => 0x98,
        '™' => 0x99,
        'š' => 0x9a,
        '›' => 0x9b,
        'œ' => 0x9c,
        'ž' => 0x9e,
        'Ÿ' => 0x9f,
        '\t' | '\n' | '\r' => b' ',
        _ => b'?',
    }
}

fn encode(text: &str) -> Vec<u8> {
    text.chars().map(win_ansi).collect()
}

/// Width in points of encoded `text` set in `face` at `size`.
fn width(text: &[u8], face: Face, size: f32) -> f32 {
    let thousandths: u32 = text
        .iter()
        .map(|&b| {
            b.checked_sub(32)
                .and_then(|i| face.widths().get(usize::from(i)))
                .map_or(0, |&w| u32::from(w))
        })
        .sum();
    thousandths as f32 * size / 1000.0
}

/// `text` broken into lines no wider than `max`: at spaces, and inside a word only when the
/// word alone is wider than a line.
fn wrap(text: &str, face: Face, size: f32, max: f32) -> Vec<Vec<u8>> {
    let mut lines = Vec::new();
    let mut line: Vec<u8> = Vec::new();
    for word in encode(text).split(|&b| b == b' ').filter(|w| !w.is_empty()) {
        let mut candidate = line.clone();
        if !candidate.is_empty() {
            candidate.push(b' ');
        }
        candidate.extend_from_slice(word);
        if width(&candidate, face, size) <= max {
            line = candidate;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        for &b in word {
            line.push(b);
            if line.len() > 1 && width(&line, face, size) > max {
                line.pop();
                lines.push(std::mem::replace(&mut line, vec![b]));
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

#[derive(Clone, Copy)]
enum Align {
    Left,
    Right,
}

/// One cell of a table row: text set between `left` and `right`.
struct Cell<'a> {
    text: &'a str,
    left: f32,
    right: f32,
    align: Align,
}

/// Pages being written top to bottom; `y` is the next line's top.
struct Layout {
    pages: Vec<Vec<u8>>,
    page: Content,
    y: f32,
}

impl Layout {
    fn new() -> Self {
        Self {
            pages: Vec::new(),
            page: Content::new(),
            y: PAGE_HEIGHT - MARGIN,
        }
    }

    /// Starts a new page unless `height` more points fit on this one.
    fn keep(&mut self, height: f32) {
        if self.y - height < MARGIN && self.y < PAGE_HEIGHT - MARGIN {
            let done = std::mem::replace(&mut self.page, Content::new());
            self.pages.push(done.finish().into_vec());
            self.y = PAGE_HEIGHT - MARGIN;
        }
    }

    /// Sets encoded `text` with its baseline `size` below `top`.
    fn put(&mut self, x: f32, top: f32, face: Face, size: f32, text: &[u8], grey: bool) {
        if grey {
            self.page.set_fill_gray(GREY);
        }
        self.page
            .begin_text()
            .set_font(face.resource(), size)
            .next_line(x, top - size)
            .show(Str(text))
            .end_text();
        if grey {
            self.page.set_fill_gray(0.0);
        }
    }

    /// A paragraph from the left margin (indented by `indent`), wrapped to the page.
    fn paragraph(&mut self, text: &str, face: Face, size: f32, indent: f32, grey: bool) {
        for line in wrap(text, face, size, RIGHT - MARGIN - indent) {
            self.keep(size * LEADING);
            let top = self.y;
            self.put(MARGIN + indent, top, face, size, &line, grey);
            self.y -= size * LEADING;
        }
    }

    /// A table row: every cell wrapped to its column, the row as tall as its tallest cell.
    fn row(&mut self, cells: &[Cell<'_>], face: Face, size: f32) {
        let wrapped: Vec<Vec<Vec<u8>>> = cells
            .iter()
            .map(|cell| wrap(cell.text, face, size, cell.right - cell.left))
            .collect();
        let lines = wrapped.iter().map(Vec::len).max().unwrap_or(1);
        let height = lines as f32 * size * LEADING;
        self.keep(height);
        for (cell, cell_lines) in cells.iter().zip(&wrapped) {
            for (i, line) in cell_lines.iter().enumerate() {
                let x = match cell.align {
                    Align::Left => cell.left,
                    Align::Right => cell.right - width(line, face, size),
                };
                let top = self.y - i as f32 * size * LEADING;
                self.put(x, top, face, size, line, false);
            }
        }
        self.y -= height;
    }

    /// A thin line across the page, with a little space around it.
    fn rule(&mut self) {
        self.keep(8.0);
        let y = self.y - 3.0;
        self.page
            .set_line_width(0.5)
            .move_to(MARGIN, y)
            .line_to(RIGHT, y)
            .stroke();
        self.y -= 7.0;
    }

    fn gap(&mut self, points: f32) {
        self.y -= points;
    }

    fn finish(mut self) -> Vec<Vec<u8>> {
        self.pages.push(self.page.finish().into_vec());
        self.pages
    }
}

/// The table's columns, right edges of the amount columns from the right margin inwards.
struct Columns {
    item: (f32, f32),
    quantity: (f32, f32),
    unit_price: (f32, f32),
    discount: (f32, f32),
    amount: (f32, f32),
}

const COLUMNS: Columns = {
    let amount = (RIGHT - 78.0, RIGHT);
    let discount = (amount.0 - GUTTER - 70.0, amount.0 - GUTTER);
    let unit_price = (discount.0 - GUTTER - 78.0, discount.0 - GUTTER);
    let quantity = (unit_price.0 - GUTTER - 52.0, unit_price.0 - GUTTER);
    Columns {
        item: (MARGIN, quantity.0 - GUTTER),
        quantity,
        unit_price,
        discount,
        amount,
    }
};

fn cell(text: &str, (left, right): (f32, f32), align: Align) -> Cell<'_> {
    Cell {
        text,
        left,
        right,
        align,
    }
}

/// A block of lines under a heading, set in a column from `left`, `width` wide, starting at
/// the layout's current line; returns its height.
fn block(layout: &mut Layout, left: f32, width: f32, heading: &str, lines: &[String]) -> f32 {
    let top = layout.y;
    let mut y = top;
    for line in wrap(heading, Face::Bold, SMALL, width) {
        layout.put(left, y, Face::Bold, SMALL, &line, true);
        y -= SMALL * LEADING;
    }
    y -= 2.0;
    for text in lines.iter().filter(|l| !l.is_empty()) {
        for line in wrap(text, Face::Regular, BODY, width) {
            layout.put(left, y, Face::Regular, BODY, &line, false);
            y -= BODY * LEADING;
        }
    }
    top - y
}

/// The receipt `page` as a PDF document in the request's language.
pub(super) fn render(page: &ReceiptPage) -> Vec<u8> {
    let t = i18n::t;
    let mut layout = Layout::new();

    let heading = format!("{} {}", t("receipt-heading"), page.number);
    layout.paragraph(&page.seller_name, Face::Bold, BODY, 0.0, true);
    layout.gap(4.0);
    layout.paragraph(&heading, Face::Bold, 20.0, 0.0, false);
    layout.gap(4.0);
    for (label, value) in [
        (t("receipt-date"), page.date.as_str()),
        (t("receipt-order"), page.order_number.as_str()),
    ] {
        layout.paragraph(
            &format!("{label}: {value}"),
            Face::Regular,
            BODY,
            0.0,
            false,
        );
    }
    layout.gap(14.0);

    let mut seller = vec![if page.seller_legal_name.is_empty() {
        page.seller_name.clone()
    } else {
        page.seller_legal_name.clone()
    }];
    seller.extend(page.seller_address.iter().cloned());
    seller.push(page.seller_registration.clone());
    seller.push(page.seller_contact.clone());
    let mut customer: Vec<String> = page.billing_name.iter().cloned().collect();
    customer.push(page.customer_email.clone());
    customer.extend(page.billing_country.iter().cloned());
    let half = (RIGHT - MARGIN - 24.0) / 2.0;
    let needed = (seller.len().max(customer.len()) + 1) as f32 * BODY * LEADING + 4.0;
    layout.keep(needed);
    let seller_height = block(&mut layout, MARGIN, half, &t("receipt-seller"), &seller);
    let customer_height = block(
        &mut layout,
        MARGIN + half + 24.0,
        half,
        &t("receipt-customer"),
        &customer,
    );
    layout.gap(seller_height.max(customer_height) + 14.0);

    let c = &COLUMNS;
    layout.row(
        &[
            cell(&t("receipt-item"), c.item, Align::Left),
            cell(&t("receipt-quantity"), c.quantity, Align::Right),
            cell(&t("receipt-unit-price"), c.unit_price, Align::Right),
            cell(&t("receipt-discount"), c.discount, Align::Right),
            cell(&t("receipt-amount"), c.amount, Align::Right),
        ],
        Face::Bold,
        SMALL,
    );
    layout.rule();
    for line in &page.items {
        let quantity = line.quantity.to_string();
        layout.row(
            &[
                cell(&line.description, c.item, Align::Left),
                cell(&quantity, c.quantity, Align::Right),
                cell(&line.unit_price, c.unit_price, Align::Right),
                cell(&line.discount, c.discount, Align::Right),
                cell(&line.amount, c.amount, Align::Right),
            ],
            Face::Regular,
            BODY,
        );
        layout.gap(3.0);
    }
    layout.rule();
    let label = (MARGIN, c.discount.1);
    if let Some(net) = &page.net {
        layout.row(
            &[
                cell(&t("receipt-net"), label, Align::Right),
                cell(net, c.amount, Align::Right),
            ],
            Face::Regular,
            BODY,
        );
    }
    for (name, amount) in &page.taxes {
        layout.row(
            &[
                cell(name, label, Align::Right),
                cell(amount, c.amount, Align::Right),
            ],
            Face::Regular,
            BODY,
        );
    }
    layout.row(
        &[
            cell(&t("receipt-total"), label, Align::Right),
            cell(&page.total, c.amount, Align::Right),
        ],
        Face::Bold,
        11.0,
    );
    layout.gap(14.0);

    if page.taxes.is_empty() {
        layout.paragraph(&t("receipt-no-tax"), Face::Regular, BODY, 0.0, false);
    }
    let currency = i18n::ta("receipt-currency", "currency", page.currency.as_str());
    layout.paragraph(&currency, Face::Regular, BODY, 0.0, false);
    let method = format!("{}: {}", t("receipt-paid-with"), t(page.method));
    layout.paragraph(&method, Face::Regular, BODY, 0.0, false);

    if !page.credit_notes.is_empty() {
        layout.gap(12.0);
        layout.paragraph(&t("receipt-credit-notes"), Face::Bold, 11.0, 0.0, false);
        layout.gap(2.0);
        for note in &page.credit_notes {
            layout.paragraph(note, Face::Regular, BODY, 0.0, false);
            layout.gap(2.0);
        }
    }
    layout.gap(14.0);
    layout.paragraph(&t("receipt-fixed"), Face::Regular, SMALL, 0.0, true);

    document(&heading, layout.finish())
}

/// A PDF of A4 pages with the given content streams and the two fonts they use.
fn document(title: &str, pages: Vec<Vec<u8>>) -> Vec<u8> {
    let catalog = Ref::new(1);
    let tree = Ref::new(2);
    let regular = Ref::new(3);
    let bold = Ref::new(4);
    let info = Ref::new(5);
    let first_page = 6;
    let page_refs: Vec<(Ref, Ref)> = (0..pages.len())
        .map(|i| {
            let n = first_page + 2 * i32::try_from(i).unwrap_or(i32::MAX / 4);
            (Ref::new(n), Ref::new(n + 1))
        })
        .collect();

    let mut pdf = Pdf::new();
    let lang = i18n::current().code();
    pdf.catalog(catalog).pages(tree).lang(TextStr(lang));
    pdf.pages(tree)
        .kids(page_refs.iter().map(|(page, _)| *page))
        .count(i32::try_from(pages.len()).unwrap_or(i32::MAX));
    for (font, name) in [(regular, "Helvetica"), (bold, "Helvetica-Bold")] {
        pdf.type1_font(font)
            .base_font(Name(name.as_bytes()))
            .encoding_predefined(Name(b"WinAnsiEncoding"));
    }
    pdf.document_info(info).title(TextStr(title));
    for ((page_ref, content_ref), content) in page_refs.iter().zip(&pages) {
        let mut page = pdf.page(*page_ref);
        page.media_box(Rect::new(0.0, 0.0, PAGE_WIDTH, PAGE_HEIGHT))
            .parent(tree)
            .contents(*content_ref);
        page.resources()
            .fonts()
            .pair(Face::Regular.resource(), regular)
            .pair(Face::Bold.resource(), bold);
        page.finish();
        pdf.stream(*content_ref, content);
    }
    pdf.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn western_european_text_keeps_its_letters_and_the_rest_is_marked() {
        assert_eq!(encode("Ñandú €5"), b"\xd1and\xfa \x805".to_vec());
        assert_eq!(encode("−2,00\u{202f}€"), b"-2,00\xa0\x80".to_vec());
        assert_eq!(encode("東京"), b"??".to_vec());
    }

    #[test]
    fn widths_follow_the_font() {
        // "Il" in Helvetica: 278 + 222 thousandths.
        assert!((width(b"Il", Face::Regular, 10.0) - 5.0).abs() < 0.001);
        assert!(width(b"W", Face::Bold, 10.0) > width(b"W", Face::Regular, 10.0) - 0.001);
    }

    #[test]
    fn lines_wrap_at_spaces_and_never_exceed_the_column() {
        let text = "eSIM Japan 10 GB for 30 days with a rather long plan name";
        let lines = wrap(text, Face::Regular, 10.0, 100.0);
        assert!(lines.len() > 1);
        for line in &lines {
            assert!(width(line, Face::Regular, 10.0) <= 100.0);
        }
        let joined: Vec<u8> = lines.join(&b' ');
        assert_eq!(joined, encode(text));
        // A word wider than the column is broken inside.
        let long = wrap(&"x".repeat(80), Face::Regular, 10.0, 50.0);
        assert!(long.len() > 1);
        assert!(long.iter().all(|l| width(l, Face::Regular, 10.0) <= 50.0));
    }
}
