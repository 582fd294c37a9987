"""Pictures of a replay: a PNG of one frame, an animated GIF, and one
self-contained HTML page to step through.

Tiles are drawn by the program: each noun has its own colour and shape,
texts are labelled tiles (noun texts in their noun's colour, `is` and the
properties in colours of their own), the border is grey. A hidden thing is
drawn first and faded, so the thing holding the cell's slot is on top.
Pillow draws the PNG and the GIF (the optional extra `render`); the HTML
page draws on a canvas from the frames embedded in it and needs nothing but
a browser.

Frames are taken one at a time from any iterable (a replay streamed frame
by frame, `app.replaying.FrameStream`): the HTML page is written as its
frames come, and the GIF is refused before it is drawn when it would pass
MAX_GIF_PIXELS (Pillow holds every frame of a GIF until it is written), as
the page is when it would pass MAX_HTML_BYTES.
"""
from __future__ import annotations

import json
import os
import re
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from . import tiles
from .errors import BabaError
from .files import write_atomic, write_atomic_chunks
from .game import Frame, rule_text
from .notation import Action
from .level import Level

__all__ = ["CELL", "MAX_GIF_PIXELS", "MAX_GIF_SIDE", "MAX_HTML_BYTES", "RenderError", "frame_image", "write_png", "write_gif",
           "write_html", "write_index_html", "page_html"]

CELL = 24       # pixels per cell: a 20x20 level is 480 pixels wide
#: The most pixels a GIF may hold over all its frames (a byte each while
#: Pillow writes it): 582 frames of a 20x20 level, 2,330 of a 10x10 one.
MAX_GIF_PIXELS = 2**27
#: The format's own limit: a side is a 16-bit number.
MAX_GIF_SIDE = 65_535
#: The largest replay page: some 40,000 turns of a 20x20 level.
MAX_HTML_BYTES = 64 * 2**20

BACKGROUND = (21, 24, 31)
BORDER = (72, 76, 88)
# Object colours and shapes, by object tile name.
NOUNS: Dict[str, Tuple[Tuple[int, int, int], str]] = {
    "Baba": ((240, 240, 240), "blob"), "skull": ((190, 40, 40), "skull"),
    "flag": ((237, 205, 60), "flag"), "floor": ((60, 64, 80), "tile"),
    "grass": ((92, 160, 70), "tuft"), "lava": ((230, 110, 40), "wave"),
    "rock": ((160, 120, 80), "rock"), "wall": ((128, 128, 148), "brick"),
    "keke": ((225, 70, 60), "blob"), "goop": ((70, 120, 200), "wave"),
    "love": ((235, 120, 190), "heart"),
}
IS_COLOUR = (250, 250, 250)
PROPERTY_COLOURS: Dict[str, Tuple[int, int, int]] = {
    "you": (220, 90, 190), "win": (237, 205, 60), "stop": (80, 160, 90), "push": (160, 120, 80),
    "move": (120, 200, 230), "kill": (200, 50, 50), "sink": (70, 120, 200), "hot": (240, 140, 50),
    "melt": (120, 200, 240),
}


class RenderError(BabaError):
    """Pictures cannot be made (Pillow is missing); one line."""


def _pillow() -> Any:
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        raise RenderError("PNG and GIF output need Pillow: pip install 'babasolver[render]' "
                          "(from a clone: pip install '.[render]')") from None
    return Image, ImageDraw


def _colour(tile: int) -> Tuple[int, int, int]:
    name = tiles.NAMES[tile]
    if (tiles.OBJECT_MASK >> tile) & 1:
        return NOUNS[name][0]
    if tile == tiles.IS_TEXT:
        return IS_COLOUR
    if (tiles.NOUN_TEXT_MASK >> tile) & 1:
        return NOUNS[tiles.NAMES[tiles.NOUN_TARGET[tile]]][0]
    return PROPERTY_COLOURS[tiles.WORDS[tile]]


def _things(frame: Frame) -> List[Tuple[int, int, int, bool]]:
    """(tile, x, y, hidden): hidden ones first, so slot holders are drawn last."""
    things = [(t, x, y, h) for t, x, y, _f, h in frame.objects] + list(frame.texts)
    return sorted(things, key=lambda thing: not thing[3])


def _fade(colour: Tuple[int, int, int], hidden: bool) -> Tuple[int, int, int]:
    if not hidden:
        return colour
    return tuple((c + b) // 2 for c, b in zip(colour, BACKGROUND))  # type: ignore[return-value]


def _draw_object(draw: Any, tile: int, x0: int, y0: int, colour: Tuple[int, int, int]) -> None:
    shape = NOUNS[tiles.NAMES[tile]][1]
    c, m = CELL, CELL // 6
    box = (x0 + m, y0 + m, x0 + c - m, y0 + c - m)
    if shape in ("blob", "skull"):
        draw.ellipse(box, fill=colour)
        eye = (BACKGROUND if shape == "blob" else (30, 30, 30))
        draw.rectangle((x0 + c // 3, y0 + c // 3, x0 + c // 3 + 2, y0 + c // 3 + 3), fill=eye)
        draw.rectangle((x0 + 2 * c // 3 - 2, y0 + c // 3, x0 + 2 * c // 3, y0 + c // 3 + 3), fill=eye)
    elif shape == "flag":
        draw.line((x0 + c // 3, y0 + m, x0 + c // 3, y0 + c - m), fill=colour, width=2)
        draw.polygon([(x0 + c // 3, y0 + m), (x0 + c - m, y0 + c // 3), (x0 + c // 3, y0 + c // 2)], fill=colour)
    elif shape == "tile":
        draw.rectangle((x0 + 1, y0 + 1, x0 + c - 2, y0 + c - 2), outline=colour)
    elif shape == "tuft":
        for k in range(3):
            bx = x0 + m + k * (c - 2 * m) // 3
            draw.line((bx, y0 + c - m, bx + 3, y0 + c // 2), fill=colour, width=2)
    elif shape == "wave":
        draw.rectangle((x0 + 1, y0 + c // 3, x0 + c - 2, y0 + c - 2), fill=colour)
        draw.line((x0 + 1, y0 + c // 3, x0 + c - 2, y0 + c // 3 + 3), fill=BACKGROUND, width=1)
    elif shape == "rock":
        draw.polygon([(x0 + m, y0 + c - m), (x0 + c // 3, y0 + m), (x0 + c - m, y0 + c // 2),
                      (x0 + c - m, y0 + c - m)], fill=colour)
    elif shape == "brick":
        draw.rectangle((x0 + 1, y0 + 1, x0 + c - 2, y0 + c - 2), fill=colour)
        draw.line((x0 + 1, y0 + c // 2, x0 + c - 2, y0 + c // 2), fill=BACKGROUND)
    else:  # heart
        r = c // 4
        draw.ellipse((x0 + m, y0 + m, x0 + m + 2 * r, y0 + m + 2 * r), fill=colour)
        draw.ellipse((x0 + c - m - 2 * r, y0 + m, x0 + c - m, y0 + m + 2 * r), fill=colour)
        draw.polygon([(x0 + m, y0 + m + r), (x0 + c - m, y0 + m + r), (x0 + c // 2, y0 + c - m)], fill=colour)


def _draw_text(draw: Any, tile: int, x0: int, y0: int, colour: Tuple[int, int, int]) -> None:
    word = tiles.WORDS[tile].upper()
    draw.rectangle((x0 + 1, y0 + 1, x0 + CELL - 2, y0 + CELL - 2), outline=colour)
    label = word if len(word) <= 2 else word[:2]
    draw.text((x0 + 4, y0 + 2), label, fill=colour)
    if len(word) > 2:
        draw.text((x0 + 4, y0 + CELL // 2 - 1), word[2:4], fill=colour)


def frame_image(level: Level, frame: Frame) -> Any:
    """The frame as a Pillow RGB image, CELL pixels a cell."""
    Image, ImageDraw = _pillow()
    image = Image.new("RGB", (level.width * CELL, level.height * CELL), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for index, tile in enumerate(level.grid):
        if tile == tiles.BORDER:
            x, y = index % level.width, index // level.width
            draw.rectangle((x * CELL, y * CELL, x * CELL + CELL - 1, y * CELL + CELL - 1), fill=BORDER)
    for tile, x, y, hidden in _things(frame):
        if not (0 <= x < level.width and 0 <= y < level.height):
            continue
        colour = _fade(_colour(tile), hidden)
        if (tiles.TEXT_MASK >> tile) & 1:
            _draw_text(draw, tile, x * CELL, y * CELL, colour)
        else:
            _draw_object(draw, tile, x * CELL, y * CELL, colour)
    return image


def _encoded(image: Any, fmt: str, **options: Any) -> bytes:
    import io

    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()


def write_png(level: Level, frame: Frame, path: "os.PathLike[str] | str") -> None:
    write_atomic(path, _encoded(frame_image(level, frame), "PNG"))


def _swatch(level: Level) -> Any:
    """Every tile drawn once, in view and hidden, on the background and the
    border: the colours any frame of any level can hold."""
    Image, ImageDraw = _pillow()
    drawn = [t for t in range(len(tiles.NAMES)) if t not in (tiles.EMPTY, tiles.BORDER)]
    image = Image.new("RGB", ((len(drawn) + 1) * CELL, 2 * CELL), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.rectangle((len(drawn) * CELL, 0, (len(drawn) + 1) * CELL - 1, 2 * CELL - 1), fill=BORDER)
    for k, tile in enumerate(drawn):
        for row, hidden in enumerate((False, True)):
            colour = _fade(_colour(tile), hidden)
            paint = _draw_text if (tiles.TEXT_MASK >> tile) & 1 else _draw_object
            paint(draw, tile, k * CELL, row * CELL, colour)
    return image


def write_gif(level: Level, frames: Iterable[Frame], path: "os.PathLike[str] | str",
              delay_ms: int = 250, hold_ms: int = 1500, count: Optional[int] = None) -> None:
    """One GIF frame per turn plus the start; the last one holds `hold_ms`.
    `count` is the number of frames (default: len(frames)); a GIF of more
    than MAX_GIF_PIXELS pixels in all is refused before it is drawn.

    Pillow merges equal consecutive frames, which would lose turns where
    nothing moved. So the frames share a palette holding the colour of the
    top-left pixel (the same in every frame: no tile is drawn on a cell's
    corner) twice, and that pixel alternates between the two entries: equal
    positions keep equal colours, and no frame is merged. The palette is
    made from every tile's colours, not from the frames, so that it is
    known before the first frame is drawn."""
    Image, _ = _pillow()
    n = len(frames) if count is None else count    # type: ignore[arg-type]
    width, height = level.width * CELL, level.height * CELL
    if max(width, height) > MAX_GIF_SIDE:
        raise RenderError(f"{os.fspath(path)}: a GIF is at most {MAX_GIF_SIDE:,} pixels a side, and this level is"
                          f" {width}x{height} pixels ({CELL} a cell); write --html or --png")
    if n * width * height > MAX_GIF_PIXELS:
        raise RenderError(f"{os.fspath(path)}: a GIF of {n:,} frames of {width}x{height} pixels would pass"
                          f" the {MAX_GIF_PIXELS:,} pixels a GIF may hold; write --html, or replay fewer moves")
    corner = BORDER if level.grid[0] == tiles.BORDER else BACKGROUND
    shared = _swatch(level).quantize(colors=254, dither=Image.Dither.NONE)
    palette = shared.getpalette()[:254 * 3]
    shared.putpalette(palette + [0, 0, 0] * (254 - len(palette) // 3) + list(corner) * 2)

    def pictures() -> Iterator[Any]:
        for k, frame in enumerate(frames):
            picture = frame_image(level, frame).quantize(palette=shared, dither=Image.Dither.NONE)
            picture.putpixel((0, 0), 254 + k % 2)
            yield picture

    drawn = pictures()
    first = next(drawn, None)
    if first is None:
        raise RenderError(f"{os.fspath(path)}: a GIF needs at least one frame")
    durations = [delay_ms] * (n - 1) + [hold_ms]
    data = _encoded(first, "GIF", save_all=True, append_images=drawn, duration=durations,
                    loop=0, optimize=False, disposal=1)
    write_atomic(path, data)


def _frame_json(f: Frame) -> Dict[str, Any]:
    """A compact frame for the page: things as [tile, x, y, hidden]."""
    return {
        "t": [[t, x, y, 1 if h else 0] for t, x, y, _f, h in f.objects]
             + [[t, x, y, 1 if h else 0] for t, x, y, h in f.texts],
        "r": [rule_text(a, b) for a, b in f.rules],
        "w": f.won, "d": f.dead, "i": f.illegal,
        "a": None if f.action is None else Action(f.action).word,
    }


def _frames_json(frames: Sequence[Frame]) -> List[Dict[str, Any]]:
    return [_frame_json(f) for f in frames]


def _palette_json() -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for tile, name in enumerate(tiles.NAMES):
        if tile in (tiles.EMPTY, tiles.BORDER):
            continue
        is_text = bool((tiles.TEXT_MASK >> tile) & 1)
        out[str(tile)] = {
            "c": "rgb(%d,%d,%d)" % _colour(tile),
            "s": "text" if is_text else NOUNS[name][1],
            "w": tiles.WORDS[tile].upper() if is_text else name,
        }
    return out


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
body{background:#15181f;color:#ddd;font:14px system-ui,sans-serif;margin:16px}
#board{image-rendering:pixelated;border:1px solid #333;display:block}
button{font:inherit;margin-right:4px}
#moves span{padding:0 2px}#moves .now{background:#dd5aaf;color:#fff}
#status{font-weight:bold;margin:8px 0}.won{color:#7c5}.bad{color:#e55}
#rules{color:#aaa}
</style></head><body>
<h1 style="font-size:18px">__TITLE__</h1>
<canvas id="board"></canvas>
<div id="status"></div>
<div><button id="back" title="step back (left arrow)">&#9664;</button><button id="play" title="play or pause (space)">play</button><button id="fwd" title="step forward (right arrow)">&#9654;</button>
<input id="slider" type="range" min="0" value="0" style="width:300px"> <span id="turn"></span></div>
<p id="moves"></p><p>rules: <span id="rules"></span></p>
<script>
const LEVEL=__LEVEL__, FRAMES=__FRAMES__, TILES=__TILES__, C=__CELL__;
const cv=document.getElementById('board'), g=cv.getContext('2d');
cv.width=LEVEL.w*C; cv.height=LEVEL.h*C;
let k=0, timer=null;
function shape(t,x,y,hid){const p=TILES[t], x0=x*C, y0=y*C, m=C/6;
 g.globalAlpha=hid?0.45:1; g.fillStyle=p.c; g.strokeStyle=p.c;
 if(p.s==='text'){g.strokeRect(x0+1.5,y0+1.5,C-3,C-3); g.font='bold 8px sans-serif'; g.textAlign='center';
  g.fillText(p.w.slice(0,4),x0+C/2,y0+C/2+3);}
 else if(p.s==='blob'||p.s==='skull'||p.s==='heart'){g.beginPath();g.arc(x0+C/2,y0+C/2,C/2-m,0,7);g.fill();}
 else if(p.s==='flag'){g.fillRect(x0+C/3,y0+m,2,C-2*m);g.beginPath();g.moveTo(x0+C/3,y0+m);g.lineTo(x0+C-m,y0+C/3);g.lineTo(x0+C/3,y0+C/2);g.fill();}
 else if(p.s==='tile'){g.strokeRect(x0+1.5,y0+1.5,C-3,C-3);}
 else if(p.s==='wave'){g.fillRect(x0+1,y0+C/3,C-2,C*2/3-1);}
 else{g.fillRect(x0+1,y0+1,C-2,C-2);}
 g.globalAlpha=1;}
function draw(){const f=FRAMES[k]; g.fillStyle='#15181f'; g.fillRect(0,0,cv.width,cv.height);
 g.fillStyle='#484c58'; for(const [x,y] of LEVEL.border) g.fillRect(x*C,y*C,C,C);
 const th=f.t.slice().sort((a,b)=>b[3]-a[3]); for(const [t,x,y,h] of th) shape(t,x,y,h);
 document.getElementById('slider').value=k;
 document.getElementById('turn').textContent='turn '+k+' of '+(FRAMES.length-1)+(f.a?' ('+f.a+')':'');
 document.getElementById('rules').textContent=f.r.join(', ')||'(none)';
 const st=document.getElementById('status');
 if(f.i){st.textContent='cannot be played: '+f.i; st.className='bad';}
 else if(f.w){st.textContent='won'; st.className='won';}
 else if(k===FRAMES.length-1){st.textContent=f.d?'lost: nothing is YOU or MOVE':'not won'; st.className='bad';}
 else{st.textContent=''; st.className='';}
 const ms=document.getElementById('moves').children; for(let j=0;j<ms.length;j++) ms[j].className=(j===k-1)?'now':'';}
function go(j){k=Math.max(0,Math.min(FRAMES.length-1,j)); draw(); if(k===FRAMES.length-1) pause();}
function pause(){if(timer){clearInterval(timer);timer=null;} document.getElementById('play').textContent='play';}
function play(){if(timer){pause();return;} if(k===FRAMES.length-1) k=0; timer=setInterval(()=>go(k+1),__DELAY__); document.getElementById('play').textContent='pause';}
const mv=document.getElementById('moves'); FRAMES.slice(1).forEach((f,j)=>{const s=document.createElement('span'); s.textContent=({up:'\\u2191',down:'\\u2193',left:'\\u2190',right:'\\u2192',wait:'\\u00b7'})[f.a]; s.onclick=()=>go(j+1); mv.appendChild(s);});
document.getElementById('slider').max=FRAMES.length-1;
document.getElementById('slider').oninput=(e)=>go(+e.target.value);
document.getElementById('back').onclick=()=>go(k-1); document.getElementById('fwd').onclick=()=>go(k+1);
document.getElementById('play').onclick=play;
document.addEventListener('keydown',(e)=>{if(e.key==='ArrowRight'){go(k+1);e.preventDefault();}
 else if(e.key==='ArrowLeft'){go(k-1);e.preventDefault();} else if(e.key===' '){play();e.preventDefault();}});
draw();
</script></body></html>
"""


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _script_json(value: Any) -> str:
    # `</` would end the script element early.
    return json.dumps(value, separators=(",", ":")).replace("</", "<\\/")


def _page_parts(level: Level, title: str, delay_ms: int) -> Tuple[str, str]:
    """The page before and after its frames' JSON array. The template is
    filled in one pass, so a title holding `__CELL__` stays as it is."""
    border = [[i % level.width, i // level.width] for i, t in enumerate(level.grid) if t == tiles.BORDER]
    values = {
        "TITLE": _escape(title),
        "LEVEL": _script_json({"w": level.width, "h": level.height, "border": border}),
        "TILES": _script_json(_palette_json()),
        "CELL": str(CELL), "DELAY": str(int(delay_ms)),
    }
    before, after = PAGE.split("__FRAMES__")
    return tuple(re.sub(r"__([A-Z]+)__", lambda m: values.get(m.group(1), m.group(0)), part)  # type: ignore[return-value]
                 for part in (before, after))


def page_html(level: Level, frames: Sequence[Frame], title: str, delay_ms: int = 300) -> str:
    """The self-contained replay page."""
    before, after = _page_parts(level, title, delay_ms)
    return before + _script_json(_frames_json(frames)) + after


def write_html(level: Level, frames: Iterable[Frame], path: "os.PathLike[str] | str",
               title: str, delay_ms: int = 300, count: Optional[int] = None) -> None:
    """The replay page (`page_html`), written as its frames come. With
    `count` (the number of frames), a page that the first frame's size says
    would pass MAX_HTML_BYTES is refused before it is written; any page is
    refused once it passes it, and nothing of it is left."""
    before, after = _page_parts(level, title, delay_ms)

    def too_large() -> RenderError:
        return RenderError(f"{os.fspath(path)}: the replay page would pass {MAX_HTML_BYTES // 2**20} MiB;"
                           " replay fewer moves")

    def chunks() -> Iterator[bytes]:
        size = 0
        for k, frame in enumerate(frames):
            chunk = (("[" if k == 0 else ",") + _script_json(_frame_json(frame))).encode("utf-8")
            size += len(chunk)
            if (count is not None and k == 0 and size * count > MAX_HTML_BYTES) or size > MAX_HTML_BYTES:
                raise too_large()
            if k == 0:
                chunk = before.encode("utf-8") + chunk
            yield chunk
        yield (("[" if size == 0 else "") + "]" + after).encode("utf-8")

    write_atomic_chunks(path, chunks())


def write_index_html(rows: Sequence[Tuple[str, str, Optional[int], Optional[str]]],
                     path: "os.PathLike[str] | str", title: str) -> None:
    """A page listing levels: (id, status, moves, replay file or None)."""
    def anchor(link: Optional[str]) -> str:
        return "" if link is None else '<a href="%s">replay</a>' % _escape(link)

    lines = [f"<tr><td>{_escape(i)}</td><td>{_escape(status)}</td><td>{'' if moves is None else moves}</td>"
             f"<td>{anchor(link)}</td></tr>" for i, status, moves, link in rows]
    page = ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_escape(title)}</title><style>body{{font:14px system-ui,sans-serif;margin:16px}}"
            "td,th{padding:2px 10px;text-align:left}</style></head><body>"
            f"<h1 style=\"font-size:18px\">{_escape(title)}</h1><table><tr><th>level</th><th>status</th>"
            "<th>moves</th><th></th></tr>" + "".join(lines) + "</table></body></html>\n")
    write_atomic(path, page.encode("utf-8"))
