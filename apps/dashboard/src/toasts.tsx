/**
 * Toasts: short, announced confirmations that something happened. A modal <dialog> sits in the top
 * layer with everything else under its backdrop and inert, so while dialogs are open the toasts are
 * rendered inside the topmost one; otherwise at the end of the app.
 */
import { useEffect, useState } from 'preact/hooks';
import { Icon } from './icons';

const SHOWN_MS = 4000;

let messages: Array<{ id: number; text: string }> = [];
/** The open dialogs' layer ids, topmost last. */
const layers: number[] = [];
const listeners = new Set<() => void>();
const changed = () => {
  for (const listener of listeners) listener();
};
let lastId = 0;

const dismiss = (id: number) => {
  messages = messages.filter((m) => m.id !== id);
  changed();
};

export function toast(text: string): void {
  const id = ++lastId;
  messages = [...messages.slice(-2), { id, text }];
  changed();
  setTimeout(() => dismiss(id), SHOWN_MS);
}

function useToastChanges(): void {
  const [, setVersion] = useState(0);
  useEffect(() => {
    const listener = () => setVersion((v) => v + 1);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
}

/** A modal dialog's layer: while `open`, the dialog is where toasts show (if it is the topmost). */
export function useToastLayer(open: boolean): number {
  const [layer] = useState(() => ++lastId);
  useEffect(() => {
    if (!open) return;
    layers.push(layer);
    changed();
    return () => {
      layers.splice(layers.indexOf(layer), 1);
      changed();
    };
  }, [open, layer]);
  return layer;
}

/** The toast region of a layer (a dialog's, or `null` for the page): empty unless it is the top one. */
export function ToastRegion({ layer }: { layer: number | null }) {
  useToastChanges();
  if ((layers[layers.length - 1] ?? null) !== layer) return null;
  return (
    <div class="toasts" role="status" aria-live="polite">
      {messages.map((m) => (
        <div class="toast" key={m.id}>
          <span>{m.text}</span>
          <button type="button" class="toast-dismiss" aria-label="Dismiss notification" onClick={() => dismiss(m.id)}>
            <Icon name="close" size={16} />
          </button>
        </div>
      ))}
    </div>
  );
}
