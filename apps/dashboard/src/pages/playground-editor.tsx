/**
 * The playground's image editor: an image dropped or picked (PNG, JPEG, WebP) is drawn on a canvas,
 * and a brush paints the mask over it: painted areas are where the edit may change the image. The
 * mask is exported as OpenAI's convention asks: a PNG of the image's size, transparent where
 * painted, opaque elsewhere. Plain canvas, no library.
 */
import { useEffect, useId, useRef, useState } from 'preact/hooks';

/** The image being edited, as the browser decoded it. */
export interface EditImage {
  file: File;
  /** An object URL of the file: the "before" of the comparison. */
  url: string;
  width: number;
  height: number;
  bitmap: ImageBitmap;
}

/** What the form asks of the editor when it runs an edit. */
export interface MaskHandle {
  /** The mask as a PNG, or null when nothing is painted (then the whole image may change). */
  exportMask(): Promise<Blob | null>;
}

export const ACCEPTED_TYPES = ['image/png', 'image/jpeg', 'image/webp'];

/** Decodes a picked or dropped file, upright as its EXIF says (as the service stores it); throws a readable message. */
export async function decodeEditImage(file: File): Promise<EditImage> {
  if (!ACCEPTED_TYPES.includes(file.type)) throw new Error(`${file.name} is not a PNG, JPEG or WebP image`);
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    throw new Error(`${file.name} cannot be read as an image`);
  }
  return { file, url: URL.createObjectURL(file), width: bitmap.width, height: bitmap.height, bitmap };
}

/** The painted layer as a mask PNG: opaque everywhere, transparent where painted. */
function maskOf(paint: HTMLCanvasElement): Promise<Blob | null> {
  const { width, height } = paint;
  const alpha = paint.getContext('2d')!.getImageData(0, 0, width, height).data;
  let painted = false;
  for (let i = 3; i < alpha.length && !painted; i += 4) painted = alpha[i] > 0;
  if (!painted) return Promise.resolve(null);
  const out = document.createElement('canvas');
  out.width = width;
  out.height = height;
  const ctx = out.getContext('2d')!;
  ctx.fillStyle = '#000';
  ctx.fillRect(0, 0, width, height);
  ctx.globalCompositeOperation = 'destination-out';
  ctx.drawImage(paint, 0, 0);
  return new Promise((resolve) => out.toBlob((blob) => resolve(blob), 'image/png'));
}

interface Point {
  x: number;
  y: number;
}

/** The image on a canvas, the mask painted over it, and the brush's tools. */
export function MaskEditor({ image, handle, onRemove }: { image: EditImage; handle: { current: MaskHandle | null }; onRemove: () => void }) {
  const id = useId();
  const picture = useRef<HTMLCanvasElement>(null);
  const paint = useRef<HTMLCanvasElement>(null);
  const longSide = Math.max(image.width, image.height);
  const [brush, setBrush] = useState(Math.max(4, Math.round(longSide / 12)));
  const [erase, setErase] = useState(false);
  // The keyboard's brush: where Space paints, shown while the canvas has the focus from the keyboard.
  const [cursor, setCursor] = useState<Point | null>(null);
  const last = useRef<Point | null>(null);

  useEffect(() => {
    picture.current!.getContext('2d')!.drawImage(image.bitmap, 0, 0);
    paint.current!.getContext('2d')!.clearRect(0, 0, image.width, image.height);
    setCursor(null);
  }, [image]);

  handle.current = { exportMask: () => maskOf(paint.current!) };

  const stroke = (from: Point, to: Point) => {
    const ctx = paint.current!.getContext('2d')!;
    ctx.globalCompositeOperation = erase ? 'destination-out' : 'source-over';
    // The colour only shows the mask (half transparent, over the picture); the mask is made from the alpha.
    ctx.strokeStyle = '#e11d48';
    ctx.lineWidth = brush;
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    ctx.beginPath();
    ctx.moveTo(from.x, from.y);
    // A dot when the brush has not moved: a zero-length line with round caps.
    ctx.lineTo(to.x + (from.x === to.x && from.y === to.y ? 0.01 : 0), to.y);
    ctx.stroke();
  };

  const pointAt = (event: PointerEvent): Point => {
    const canvas = paint.current!;
    const box = canvas.getBoundingClientRect();
    return { x: ((event.clientX - box.left) * canvas.width) / box.width, y: ((event.clientY - box.top) * canvas.height) / box.height };
  };

  const onPointerDown = (event: PointerEvent) => {
    if (event.button !== 0) return;
    paint.current!.setPointerCapture(event.pointerId);
    setCursor(null);
    const at = pointAt(event);
    stroke(at, at);
    last.current = at;
  };
  const onPointerMove = (event: PointerEvent) => {
    if (!last.current) return;
    const at = pointAt(event);
    stroke(last.current, at);
    last.current = at;
  };
  const onPointerUp = () => {
    last.current = null;
  };

  const MOVES: Record<string, Point> = { ArrowLeft: { x: -1, y: 0 }, ArrowRight: { x: 1, y: 0 }, ArrowUp: { x: 0, y: -1 }, ArrowDown: { x: 0, y: 1 } };
  const onKeyDown = (event: KeyboardEvent) => {
    const from = cursor ?? { x: image.width / 2, y: image.height / 2 };
    const move = MOVES[event.key];
    if (move) {
      event.preventDefault();
      const step = Math.max(1, brush / 2);
      const to = {
        x: Math.min(image.width, Math.max(0, from.x + move.x * step)),
        y: Math.min(image.height, Math.max(0, from.y + move.y * step)),
      };
      if (event.shiftKey) stroke(from, to);
      setCursor(to);
    } else if (event.key === ' ') {
      event.preventDefault();
      stroke(from, from);
      setCursor(from);
    }
  };

  const clear = () => paint.current!.getContext('2d')!.clearRect(0, 0, image.width, image.height);
  const percent = (n: number, of: number) => `${(n / of) * 100}%`;

  return (
    <div class="mask-editor">
      <div class="mask-stage">
        <canvas ref={picture} class="mask-picture" width={image.width} height={image.height} />
        {/* biome-ignore lint/a11y/noInteractiveElementToNoninteractiveRole: a painting surface that takes the keyboard (arrow keys move the brush, Space paints): role application has screen readers pass those keys through */}
        <canvas
          ref={paint}
          class={`mask-paint${erase ? ' erasing' : ''}`}
          width={image.width}
          height={image.height}
          tabIndex={0}
          role="application"
          aria-label={`Mask over ${image.file.name}: paint where the image may change`}
          aria-describedby={`${id}-keys`}
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerUp}
          onPointerCancel={onPointerUp}
          onKeyDown={onKeyDown}
          onBlur={() => setCursor(null)}
        />
        {cursor && (
          <span
            class="mask-cursor"
            aria-hidden="true"
            style={{
              left: percent(cursor.x, image.width),
              top: percent(cursor.y, image.height),
              width: percent(brush, image.width),
              height: percent(brush, image.height),
            }}
          />
        )}
      </div>
      <p class="hint" id={`${id}-keys`}>
        Paint where the image may change; nothing painted lets all of it change. By keyboard: arrow keys move the brush, Space paints under it, Shift with an
        arrow paints as it moves.
      </p>
      <div class="mask-tools">
        <div class="field mask-brush">
          <label for={`${id}-brush`}>Brush size</label>
          <input
            id={`${id}-brush`}
            type="range"
            min={1}
            max={Math.max(8, Math.round(longSide / 4))}
            value={brush}
            aria-valuetext={`${brush} pixels`}
            onInput={(e) => setBrush(Number(e.currentTarget.value))}
          />
          <output for={`${id}-brush`} class="muted small">
            {brush} px
          </output>
        </div>
        <fieldset class="segmented">
          <legend>Brush</legend>
          <label class={erase ? '' : 'checked'}>
            <input type="radio" name={`${id}-tool`} checked={!erase} onChange={() => setErase(false)} />
            Paint
          </label>
          <label class={erase ? 'checked' : ''}>
            <input type="radio" name={`${id}-tool`} checked={erase} onChange={() => setErase(true)} />
            Erase
          </label>
        </fieldset>
        <button type="button" class="btn btn-secondary" onClick={clear}>
          Clear mask
        </button>
        <button type="button" class="btn btn-ghost" onClick={onRemove}>
          Remove image
        </button>
      </div>
    </div>
  );
}

/** Where an image is dropped or picked. */
export function ImageDrop({ onPick, error }: { onPick: (file: File) => void; error?: string }) {
  const id = useId();
  const [over, setOver] = useState(false);
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    const file = event.dataTransfer?.files[0];
    if (file) onPick(file);
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: dropping a file is the pointer's shortcut; the file input inside is the way for everyone
    <div
      class={`image-drop${over ? ' is-over' : ''}${error ? ' has-error' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
    >
      <label for={id}>Image to edit</label>
      <input
        id={id}
        type="file"
        accept={ACCEPTED_TYPES.join(',')}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
        aria-invalid={error ? true : undefined}
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          if (file) onPick(file);
          e.currentTarget.value = '';
        }}
      />
      <p class="hint" id={`${id}-hint`}>
        Optional: a PNG, JPEG or WebP image to edit (drop it here), up to 25 MiB and 4096 pixels a side.
      </p>
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}
