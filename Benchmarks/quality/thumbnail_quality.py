#!/usr/bin/env python3
"""Scores thumbnails against a careful reference: awi-bench's `thumbnail-quality` helper.

usage: thumbnail_quality.py MANIFEST.json RESULT.json

MANIFEST is {"size": 256, "cache": DIR, "baselines": ["pyvips", "pillow"],
"files": [{"path": SOURCE, "class": LABEL, "scale": LABEL,
"candidates": {NAME: THUMBNAIL.png, ...}}, ...], "crops": DIR}; "crops" is
optional (see `worst_crops`).

For every source file the helper makes the baselines' thumbnails itself
(pyvips `thumbnail_buffer`: libvips shrink-on-load then Lanczos-3; Pillow
`Image.thumbnail(LANCZOS)`: draft decode at >= 2x, then reduce + Lanczos),
and a reference at each candidate's output size, made the slow, careful way:
the full-size decode (Pillow), its ICC profile applied (lcms2 through
Pillow's ImageCms), then Lanczos-3 (Pillow's resampler, whose support
widens with the scale factor, no box pre-shrink) per channel in linear
light, on premultiplied alpha. The references are cached in DIR.

Every thumbnail is then scored against the reference of its own size with
two metrics nobody here wrote: SSIMULACRA 2 (PyPI `ssimulacra2`, higher is
better, 100 = identical) and butteraugli (libjxl's `butteraugli_main`,
Debian `libjxl-devtools`: max distance and 3-norm, lower is better). Images
with alpha are composited over a dark (0.1) and a light (0.9) background and
the worse score of the two is kept, as the reference SSIMULACRA 2 tool does.

RESULT gets one record per file and candidate; a summary per class, per
(class, scale) and overall is printed to stdout.
"""
import hashlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile

os.environ.setdefault("VIPS_CONCURRENCY", "1")

import numpy as np  # noqa: E402
from PIL import Image, ImageCms  # noqa: E402
from ssimulacra2 import compute_ssimulacra2  # noqa: E402

try:
    import pyvips  # noqa: E402
except ImportError:  # the pyvips baseline is then left out
    pyvips = None

SRGB = ImageCms.createProfile("sRGB")


def to_srgb(image):
    """The image in RGB or RGBA, its embedded ICC profile applied (sRGB out)."""
    if image.mode in ("I;16", "I;16B", "I"):
        image = image.point(lambda v: v / 257).convert("L")
    has_alpha = image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info)
    icc = image.info.get("icc_profile")
    image = image.convert("RGBA" if has_alpha else "RGB")
    if icc:
        try:
            source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
            image = ImageCms.profileToProfile(image, source, SRGB, outputMode=image.mode)
        except (ImageCms.PyCMSError, OSError):
            pass
    return image


def srgb_to_linear(values):
    return np.where(values <= 0.04045, values / 12.92, ((values + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(values):
    values = np.clip(values, 0, 1)
    return np.where(values <= 0.0031308, values * 12.92, 1.055 * values ** (1 / 2.4) - 0.055)


class Reference:
    """The full-size decode of one source, linear and premultiplied, resampled on demand."""

    def __init__(self, path, cache):
        self.path = path
        self.cache = cache
        with open(path, "rb") as file:
            self.digest = hashlib.sha256(file.read()).hexdigest()[:24]
        self.planes = None
        self.has_alpha = None

    def _load(self):
        if self.planes is not None:
            return
        image = to_srgb(Image.open(self.path))
        array = np.asarray(image, dtype=np.float64) / 255.0
        self.has_alpha = array.shape[2] == 4
        colour = srgb_to_linear(array[:, :, :3])
        if self.has_alpha:
            alpha = array[:, :, 3:4]
            colour = colour * alpha
            self.planes = [colour[:, :, c] for c in range(3)] + [alpha[:, :, 0]]
        else:
            self.planes = [colour[:, :, c] for c in range(3)]

    def at(self, size):
        """The reference thumbnail of `size` (width, height), as a path to a PNG."""
        name = os.path.join(self.cache, f"{self.digest}-{size[0]}x{size[1]}.png")
        if os.path.exists(name):
            return name
        self._load()
        resized = [
            np.asarray(Image.fromarray(plane.astype(np.float32), "F").resize(size, Image.LANCZOS), dtype=np.float64)
            for plane in self.planes
        ]
        colour = np.stack(resized[:3], axis=2)
        if self.has_alpha:
            alpha = np.clip(resized[3], 0, 1)[:, :, None]
            colour = np.where(alpha > 1e-6, colour / np.maximum(alpha, 1e-6), 0)
            out = np.concatenate([linear_to_srgb(colour), alpha], axis=2)
        else:
            out = linear_to_srgb(colour)
        pixels = np.clip(np.round(out * 255), 0, 255).astype(np.uint8)
        os.makedirs(self.cache, exist_ok=True)
        temporary = name + f".{os.getpid()}.tmp.png"
        Image.fromarray(pixels).save(temporary)
        os.replace(temporary, name)
        return name


def pyvips_thumbnail(path, size, out):
    with open(path, "rb") as file:
        data = file.read()
    # Colour-managed to sRGB like the others, only when there is a profile
    # to apply: without one, libvips's export to sRGB shifts the colours.
    with Image.open(path) as probe:
        managed = {"export_profile": "srgb"} if probe.info.get("icc_profile") else {}
    image = pyvips.Image.thumbnail_buffer(data, size, height=size, no_rotate=True, **managed)
    image.pngsave(out)
    return out


def pillow_thumbnail(path, size, out):
    image = Image.open(path)
    image.thumbnail((size, size), Image.LANCZOS)
    to_srgb(image).save(out)
    return out


def composites(path, backgrounds):
    """RGB PNG paths of `path` composited over each background grey (0-1); the path itself without alpha."""
    image = Image.open(path)
    if image.mode not in ("RGBA", "LA"):
        if image.mode != "RGB":
            converted = path + ".rgb.png"
            image.convert("RGB").save(converted)
            return [converted] * len(backgrounds)
        return [path] * len(backgrounds)
    array = np.asarray(image.convert("RGBA"), dtype=np.float64) / 255.0
    alpha = array[:, :, 3:4]
    paths = []
    for background in backgrounds:
        blended = array[:, :, :3] * alpha + background * (1 - alpha)
        name = f"{path}.bg{int(background * 10)}.png"
        Image.fromarray(np.clip(np.round(blended * 255), 0, 255).astype(np.uint8)).save(name)
        paths.append(name)
    return paths


def butteraugli(reference, distorted):
    run = subprocess.run(["butteraugli_main", reference, distorted], capture_output=True, text=True)
    if run.returncode != 0:
        return None, None
    lines = [line.strip() for line in run.stdout.splitlines() if line.strip()]
    maximum = float(lines[0])
    norm = next((float(line.split(":")[1]) for line in lines if line.startswith("3-norm")), None)
    return maximum, norm


def score(reference, distorted):
    """SSIMULACRA 2 and butteraugli (max, 3-norm) of `distorted` against `reference`."""
    backgrounds = [0.1, 0.9]
    refs = composites(reference, backgrounds)
    dists = composites(distorted, backgrounds)
    pairs = list(dict.fromkeys(zip(refs, dists)))
    ssim2 = min(compute_ssimulacra2(r, d) for r, d in pairs)
    butter = [butteraugli(r, d) for r, d in pairs]
    maxima = [b[0] for b in butter if b[0] is not None]
    norms = [b[1] for b in butter if b[1] is not None]
    return ssim2, (max(maxima) if maxima else None), (max(norms) if norms else None)


def worst_crops(records, directory):
    """Side-by-side 4x crops of each class's worst files into `directory`.

    Per class: the file where the library's SSIMULACRA 2 is lowest and,
    when it is another file, the one where the library falls furthest
    below the better of pyvips and Pillow (if by more than 2 points). A
    crop is the 64 x 64 window of the thumbnail where the library differs
    most from the reference (summed absolute difference, 16-pixel steps),
    shown enlarged 4x with nearest-neighbour pixels, in the order
    reference, library, pyvips, Pillow, each labelled with its score.
    Returns the PNGs written.
    """
    os.makedirs(directory, exist_ok=True)
    by_file = {}
    for record in records:
        by_file.setdefault((record["class"], record["file"]), {})[record["candidate"]] = record
    written = []
    for label in sorted({record["class"] for record in records}):
        rows = [(key[1], found) for key, found in by_file.items() if key[0] == label and "library" in found]
        if not rows:
            continue

        def shortfall(row):
            peers = [row[1][peer]["ssimulacra2"] for peer in ("pyvips", "pillow") if peer in row[1]]
            return row[1]["library"]["ssimulacra2"] - max(peers, default=0)

        chosen = [("lowest", min(rows, key=lambda row: row[1]["library"]["ssimulacra2"]))]
        behind = min(rows, key=shortfall)
        if behind[0] != chosen[0][1][0] and shortfall(behind) < -2:
            chosen.append(("behind-peers", behind))
        for kind, (name, found) in chosen:
            written.append(crop_sheet(label, kind, name, found, directory))
    with open(os.path.join(directory, "crops.json"), "w") as file:
        json.dump(written, file, indent=1)
    return written


def crop_sheet(label, kind, name, found, directory):
    """One side-by-side sheet for `found` (candidate -> record); see `worst_crops`."""
    from PIL import ImageDraw

    reference = np.asarray(Image.open(found["library"]["reference"]).convert("RGB"), dtype=np.int32)
    library = np.asarray(Image.open(found["library"]["thumbnail"]).convert("RGB"), dtype=np.int32)
    side, zoom = min(64, reference.shape[0], reference.shape[1]), 4
    difference = np.abs(reference - library).sum(axis=2)
    windows = [
        (difference[y:y + side, x:x + side].sum(), y, x)
        for y in range(0, reference.shape[0] - side + 1, 16)
        for x in range(0, reference.shape[1] - side + 1, 16)
    ]
    _, top, left = max(windows)
    panels = [("reference", found["library"]["reference"], None)] + [
        (candidate, found[candidate]["thumbnail"], found[candidate]["ssimulacra2"])
        for candidate in ("library", "pyvips", "pillow") if candidate in found
    ]
    gap, caption = 4, 18
    sheet = Image.new("RGB", (len(panels) * (side * zoom + gap) - gap, side * zoom + caption), "white")
    draw = ImageDraw.Draw(sheet)
    for index, (title, path, value) in enumerate(panels):
        with Image.open(path) as image:
            if image.size != (reference.shape[1], reference.shape[0]):
                image = image.resize((reference.shape[1], reference.shape[0]), Image.NEAREST)
            crop = image.convert("RGB").crop((left, top, left + side, top + side))
        x = index * (side * zoom + gap)
        sheet.paste(crop.resize((side * zoom, side * zoom), Image.NEAREST), (x, caption))
        text = title if value is None else f"{title}  SSIMULACRA 2 {value:.1f}"
        draw.text((x + 2, 3), text, fill="black")
    out = os.path.join(directory, f"{label.replace(' ', '-').lower()}-{kind}.png")
    sheet.save(out, optimize=True)
    return {"class": label, "kind": kind, "file": name, "png": out, "window": [left, top, side],
            "scores": {candidate: found[candidate]["ssimulacra2"] for candidate in found}}


def percentile(values, fraction):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    position = fraction * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarise(records, candidates, key):
    groups = {}
    for record in records:
        groups.setdefault(key(record), {}).setdefault(record["candidate"], {})[record["file"]] = record
    lines = []
    for group in sorted(groups):
        by_candidate = groups[group]
        pyvips_scores = by_candidate.get("pyvips", {})
        for name in candidates:
            rows = by_candidate.get(name)
            if not rows:
                continue
            scores = [r["ssimulacra2"] for r in rows.values()]
            norms = [r["butteraugli_3norm"] for r in rows.values() if r["butteraugli_3norm"] is not None]
            worse = sum(1 for f, r in rows.items() if f in pyvips_scores and r["ssimulacra2"] < pyvips_scores[f]["ssimulacra2"] - 2)
            better = sum(1 for f, r in rows.items() if f in pyvips_scores and r["ssimulacra2"] > pyvips_scores[f]["ssimulacra2"] + 2)
            lines.append({
                "group": group, "candidate": name, "files": len(scores),
                "ssimulacra2_median": statistics.median(scores), "ssimulacra2_p10": percentile(scores, 0.1),
                "butteraugli_3norm_median": statistics.median(norms) if norms else None,
                "worse_than_pyvips_by_2": worse if name != "pyvips" else None,
                "better_than_pyvips_by_2": better if name != "pyvips" else None,
            })
    return lines


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 64
    with open(sys.argv[1]) as file:
        manifest = json.load(file)
    size = int(manifest.get("size", 256))
    cache = manifest.get("cache") or os.path.join(tempfile.gettempdir(), "awi-quality-references")
    baselines = [b for b in manifest.get("baselines", ["pyvips", "pillow"]) if b != "pyvips" or pyvips is not None]
    work = tempfile.mkdtemp(prefix="awi-quality-")
    records = []
    candidates = []
    for index, entry in enumerate(manifest["files"]):
        path = entry["path"]
        made = dict(entry.get("candidates", {}))
        for baseline in baselines:
            out = os.path.join(work, f"{index}-{baseline}.png")
            try:
                made[baseline] = (pyvips_thumbnail if baseline == "pyvips" else pillow_thumbnail)(path, size, out)
            except Exception as error:  # a baseline that cannot read a file is left out for it
                print(f"{baseline} failed on {path}: {error}", file=sys.stderr)
        reference = Reference(path, cache)
        for name, thumbnail in made.items():
            if name not in candidates:
                candidates.append(name)
            with Image.open(thumbnail) as image:
                dimensions = image.size
            reference_path = reference.at(dimensions)
            ssim2, maximum, norm = score(reference_path, thumbnail)
            records.append({
                "file": os.path.basename(path), "class": entry.get("class", "?"), "scale": entry.get("scale", "?"),
                "candidate": name, "width": dimensions[0], "height": dimensions[1],
                "ssimulacra2": ssim2, "butteraugli_max": maximum, "butteraugli_3norm": norm,
                "thumbnail": thumbnail, "reference": reference_path,
            })
        print(f"\r{index + 1}/{len(manifest['files'])}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    # The scale of a baseline's row is the library's, so rows line up file by file.
    summary = {
        "by_class": summarise(records, candidates, lambda r: r["class"]),
        "by_scale": summarise(records, candidates, lambda r: f'{r["class"]} @ {r["scale"]}'),
        "overall": summarise(records, candidates, lambda r: "all"),
    }
    if manifest.get("crops"):
        for crop in worst_crops(records, manifest["crops"]):
            print(f'crop: {crop["class"]}: {crop["file"]} -> {crop["png"]}', file=sys.stderr)
    with open(sys.argv[2], "w") as file:
        json.dump({"records": records, "summary": summary}, file, indent=1)
    for section in ("by_class", "by_scale", "overall"):
        print(f"## {section}")
        print(f'{"group":44} {"candidate":14} {"n":>4} {"ssim2 med":>9} {"p10":>7} {"butter3":>8} {"<pv-2":>6} {">pv+2":>6}')
        for line in summary[section]:
            b = line["butteraugli_3norm_median"]
            w = line["worse_than_pyvips_by_2"]
            g = line["better_than_pyvips_by_2"]
            print(f'{line["group"][:44]:44} {line["candidate"][:14]:14} {line["files"]:4d} {line["ssimulacra2_median"]:9.2f} '
                  f'{line["ssimulacra2_p10"]:7.2f} {(f"{b:8.3f}" if b is not None else "       -")} '
                  f'{(f"{w:6d}" if w is not None else "     -")} {(f"{g:6d}" if g is not None else "     -")}')
    return 0


if __name__ == "__main__":
    sys.exit(main())
