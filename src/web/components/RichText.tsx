import { blocks, type Span } from '../state/rich-text.js';

function Spans({ spans }: { spans: readonly Span[] }) {
  return (
    <>
      {spans.map((s, i) => {
        // By place, not by text: a streamed answer's last span grows with every piece and is updated in place.
        const key = `${i}:${s.code ? 'c' : s.bold ? 'b' : 't'}`;
        if (s.code) return <code key={key}>{s.text}</code>;
        if (s.bold) return <strong key={key}>{s.text}</strong>;
        return <span key={key}>{s.text}</span>;
      })}
    </>
  );
}

/** A model's answer with its paragraphs, lists, bold, code and code blocks. */
export function RichText({ text }: { text: string }) {
  return (
    <>
      {blocks(text).map((block, i) => {
        const key = `${block.kind}-${i}`;
        if (block.kind === 'paragraph') {
          return (
            <p key={key}>
              {block.lines.map((line, j) => (
                <span key={`${key}-${j}`}>
                  {j > 0 && <br />}
                  <Spans spans={line} />
                </span>
              ))}
            </p>
          );
        }
        if (block.kind === 'code') {
          return (
            <pre key={key} class="code-block">
              <code>{block.text}</code>
            </pre>
          );
        }
        const List = block.ordered ? 'ol' : 'ul';
        // Room for the widest number and its dot: "150." ran into the bubble's edge in the 20 px a bullet takes.
        const digits = String(block.items.length).length;
        const style =
          block.ordered && digits > 1 ? { paddingLeft: `calc(${digits + 1}ch + 8px)` } : undefined;
        return (
          <List key={key} style={style}>
            {block.items.map((item, j) => (
              <li key={`${key}-${j}`}>
                <Spans spans={item} />
              </li>
            ))}
          </List>
        );
      })}
    </>
  );
}
