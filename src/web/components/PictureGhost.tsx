/**
 * The part `from` (document px) of the canvas's picture, faded, shown in the box `place` and stretched from
 * `from`'s size to `to`'s: what a layer being moved, scaled or turned looks like before the server's new picture
 * shows it (the Move tool's drag, the transform handles).
 */
interface Size {
  readonly w: number;
  readonly h: number;
}

export function PictureGhost({
  picture,
  place,
  from,
  to,
  zoom,
  docSize,
}: {
  picture: string;
  place: Record<string, string>;
  from: { readonly x: number; readonly y: number } & Size;
  to: Size;
  zoom: number;
  docSize: Size;
}) {
  const kx = (to.w * zoom) / from.w;
  const ky = (to.h * zoom) / from.h;
  return (
    <span class="move-ghost" aria-hidden="true" style={place}>
      <img
        src={picture}
        alt=""
        draggable={false}
        style={{
          left: `${-from.x * kx}px`,
          top: `${-from.y * ky}px`,
          width: `${docSize.w * kx}px`,
          height: `${docSize.h * ky}px`,
        }}
      />
    </span>
  );
}
