/** Text safe inside HTML element content and quoted attributes (numeric character references). */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
