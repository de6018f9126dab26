/** The widget's styles: the team's colour and corner; text on the colour is black or white, whichever reads better. */

const HEX = /^#([0-9a-f]{6})$/i;

/** WCAG relative luminance of `#rrggbb`. */
function luminance(hex: string): number {
  const n = parseInt(hex.slice(1), 16);
  const channel = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel((n >> 16) & 255) + 0.7152 * channel((n >> 8) & 255) + 0.0722 * channel(n & 255);
}

/** The text colour on `bg` with the higher contrast ratio. */
export function textOn(bg: string): string {
  const l = luminance(bg);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#000000' : '#ffffff';
}

export function panelCss(primaryColor: string, position: string): string {
  const color = HEX.test(primaryColor) ? primaryColor : '#4f46e5';
  const ink = textOn(color);
  const [vertical, horizontal] = (/^(top|bottom)-(left|right)$/.test(position) ? position : 'bottom-right').split('-');
  return `
:host { all: initial; }
* { box-sizing: border-box; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
[hidden] { display: none !important; }
.launcher, .panel { position: fixed; ${horizontal}: 20px; z-index: 2147483647; }
.launcher { ${vertical}: 20px; min-width: 64px; height: 48px; padding: 0 18px; border: 0; border-radius: 24px;
  background: ${color}; color: ${ink}; font-size: 16px; font-weight: 600; cursor: pointer; box-shadow: 0 4px 14px rgba(0,0,0,.25); }
.panel { ${vertical}: 80px; width: 340px; max-width: calc(100vw - 40px); max-height: calc(100vh - 100px); display: flex;
  flex-direction: column; background: #ffffff; color: #1f2328; border-radius: 12px; overflow: hidden; box-shadow: 0 8px 28px rgba(0,0,0,.3); }
header { display: flex; align-items: center; justify-content: space-between; padding: 12px 16px; background: ${color}; color: ${ink}; }
h2 { margin: 0; font-size: 16px; }
.close { border: 0; background: transparent; color: ${ink}; font-size: 24px; line-height: 1; cursor: pointer; width: 32px; height: 32px; }
.greeting { margin: 12px 16px 0; font-size: 14px; }
.log { margin: 0; padding: 8px 16px; overflow-y: auto; flex: 1; min-height: 60px; }
.log ol { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; }
.log li { margin: 6px 0; padding: 8px 10px; border-radius: 8px; font-size: 14px; max-width: 85%; }
.log li p { margin: 2px 0 0; white-space: pre-wrap; word-break: break-word; }
.log .mine { margin-left: auto; background: #eef0f3; }
.log .theirs { background: #f6f8fa; border: 1px solid #d0d7de; }
.who { font-size: 12px; font-weight: 600; color: #424a53; }
.alert { margin: 0 16px; color: #b3261e; font-size: 13px; }
.alert:empty { display: none; }
.confirm { margin: 8px 16px 0; padding: 8px; border: 1px solid #d0d7de; border-radius: 8px; display: flex; flex-direction: column; gap: 6px; font-size: 13px; }
.confirm p { margin: 0; }
.compose { padding: 8px 16px 16px; display: flex; flex-direction: column; gap: 8px; }
.field { display: flex; flex-direction: column; gap: 2px; }
label { font-size: 13px; font-weight: 600; color: #1f2328; }
input, textarea { font-size: 14px; padding: 8px; border: 1px solid #6e7781; border-radius: 6px; color: #1f2328; background: #ffffff; resize: vertical; }
.send { align-self: flex-end; padding: 8px 18px; border: 0; border-radius: 6px; background: ${color}; color: ${ink}; font-size: 14px; font-weight: 600; cursor: pointer; }
.send:disabled { opacity: .6; }
button:focus-visible, input:focus-visible, textarea:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
`;
}
