#!/usr/bin/env python3
"""Scores thumbnails against a panel of references: awi-bench's `thumbnail-quality` helper.

usage: thumbnail_quality.py MANIFEST.json RESULT.json
       thumbnail_quality.py --make-patterns DIR     (writes the line-pattern set, prints its paths)
       thumbnail_quality.py --self-test             (checks the area reference against block means)

MANIFEST is {"size": 256, "cache": DIR, "baselines": ["pyvips", "pillow"],
"files": [{"path": SOURCE, "class": LABEL, "scale": LABEL, "decoded": PNG?,
"candidates": {NAME: THUMBNAIL.png, ...}}, ...], "crops": DIR}; "crops" is
optional (see `worst_crops`); "decoded" optionally names a lossless
full-size decode of SOURCE to build the references from. HEIC, which Pillow
cannot read, is decoded by libheif's own `heif-convert` (Debian
`libheif-examples`).

For every source file the helper makes the baselines' thumbnails itself
(pyvips `thumbnail_buffer`: libvips shrink-on-load then Lanczos-3 on the
stored values; Pillow `Image.thumbnail(LANCZOS)`: draft decode at >= 2x, then
reduce + Lanczos), and, at each candidate's output size, three references
from the same full-size decode (Pillow, its ICC profile applied with lcms2
through Pillow's ImageCms), made with tools nobody here wrote and built the
way no one candidate works alone:

- `linear-lanczos3`: Lanczos-3 (Pillow's float resampler, support widened by
  the scale factor, no pre-shrink) per channel in linear light, premultiplied;
- `srgb-lanczos3`: the same filter on the sRGB-encoded values (what libvips,
  Pillow, ImageMagick's default and browsers do), premultiplied;
- `linear-area`: the exact area average in linear light, premultiplied:
  every output pixel the mean of the source area it covers, edge pixels
  weighed by the fraction they cover (numpy; `--self-test` checks it against
  block means). No candidate resamples this way.

Every thumbnail is scored against each reference of its own size with two
metrics nobody here wrote: SSIMULACRA 2 (PyPI `ssimulacra2`, higher is
better, 100 = identical) and butteraugli (libjxl's `butteraugli_main`, Debian
`libjxl-devtools`: 3-norm, lower is better). Images with alpha are
composited over a dark (0.1) and a light (0.9) background and the worse
score of the two is kept, as the reference SSIMULACRA 2 tool does.

Halos, two counts per thumbnail (over the same composites, the larger kept):
- `halo_area`: pixels more than 8 levels darker than the darkest, or
  brighter than the brightest, pixel of the area reference's 3x3
  neighbourhood (any channel);
- `halo_source`: pixels more than 8 levels outside the range of the
  full-size source pixels under their own 3x3 neighbourhood's footprint.
  This is the refinement: a min and a max do not depend on the light, and
  the source's range holds every value a filter without over- or
  undershoot can make, however sharp. The area count also flags fine
  texture that a sharp filter keeps and the soft area average flattens;
  the source count flags only values that exist nowhere under the pixel
  (the dark line beside a white edge).

Line patterns (`--make-patterns`): fine light-on-dark lines, dots and
checkerboards where resizing the sRGB-encoded values visibly darkens the
result; for every thumbnail of a file whose manifest class starts with
"line patterns" the record also holds `luminance_error`, how far its mean
linear-light luminance lands from the full-size source's, in percent of the
source's.

RESULT gets one record per file and candidate; a summary per class, per
(class, scale) and overall is printed to stdout. The first two arguments
may be followed by `--jobs N` (2 by default): files scored in parallel.
"""
import hashlib
import io
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile

os.environ.setdefault("VIPS_CONCURRENCY", "1")

import numpy as np  # noqa: E402
from PIL import Image, ImageCms  # noqa: E402
from scipy import ndimage, sparse  # noqa: E402
from ssimulacra2 import compute_ssimulacra2  # noqa: E402

try:
    import pyvips  # noqa: E402
except ImportError:  # the pyvips baseline is then left out
    pyvips = None

SRGB = ImageCms.createProfile("sRGB")
REFERENCES = ("linear-area", "linear-lanczos3", "srgb-lanczos3")
BACKGROUNDS = (0.1, 0.9)
HALO_LEVELS = 8
PATTERN_CLASS = "line patterns"


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


def area_weights(source, destination):
    """The exact area-average matrix (destination x source), sparse: row i
    covers [i s, (i + 1) s) with s = source / destination; a source sample j
    covers [j, j + 1) and weighs the length of the overlap, over s."""
    scale = source / destination
    rows, cols, values = [], [], []
    for i in range(destination):
        lower, upper = i * scale, (i + 1) * scale
        first, last = int(np.floor(lower)), min(source, int(np.ceil(upper)))
        for j in range(first, last):
            overlap = min(upper, j + 1) - max(lower, j)
            if overlap > 0:
                rows.append(i)
                cols.append(j)
                values.append(overlap / scale)
    return sparse.csr_matrix((values, (rows, cols)), shape=(destination, source))


def area_resize(plane, size):
    """`plane` (height x width) area-averaged to `size` (width, height)."""
    vertical = area_weights(plane.shape[0], size[1])
    horizontal = area_weights(plane.shape[1], size[0])
    return np.asarray((horizontal @ (vertical @ plane).T).T)


def lanczos_resize(plane, size):
    return np.asarray(Image.fromarray(plane.astype(np.float32), "F").resize(size, Image.LANCZOS), dtype=np.float64)


LINEAR_OF_BYTE = srgb_to_linear(np.arange(256) / 255.0)


class Source:
    """The full-size decode of one source file, resampled on demand into the references."""

    def __init__(self, path, cache, decoded=None):
        self.path = path
        self.decoded = decoded or path
        self.cache = cache
        with open(path, "rb") as file:
            self.digest = hashlib.sha256(file.read()).hexdigest()[:24]
        self.pixels = None  # uint8, H x W x 3 or 4
        self.planes = {}  # light -> premultiplied float32 planes (colour, then alpha)

    def _load(self):
        if self.pixels is None:
            try:
                image = Image.open(self.decoded)
            except OSError:  # HEIC: Pillow has no reader; libheif's own tool decodes the primary image
                png = os.path.join(tempfile.mkdtemp(prefix="awi-quality-decode-"), "decoded.png")
                subprocess.run(["heif-convert", "--quiet", self.decoded, png], check=True, capture_output=True)
                image = Image.open(png)
            self.pixels = np.asarray(to_srgb(image), dtype=np.uint8)
        return self.pixels

    def _planes(self, light):
        """The colour planes in `light` ("linear" or "srgb"), premultiplied, then alpha."""
        if light not in self.planes:
            pixels = self._load()
            table = (LINEAR_OF_BYTE if light == "linear" else np.arange(256) / 255.0).astype(np.float32)
            colour = [table[pixels[:, :, c]] for c in range(3)]
            if pixels.shape[2] == 4:
                alpha = pixels[:, :, 3].astype(np.float32) / 255
                colour = [plane * alpha for plane in colour] + [alpha]
            self.planes[light] = colour
        return self.planes[light]

    def reference(self, kind, size):
        """The reference of `kind` at `size` (width, height), as a path to a PNG."""
        name = os.path.join(self.cache, f"{self.digest}-{kind}-{size[0]}x{size[1]}.png")
        if os.path.exists(name):
            return name
        planes = self._planes("srgb" if kind == "srgb-lanczos3" else "linear")
        resize = area_resize if kind == "linear-area" else lanczos_resize
        resized = [resize(plane, size) for plane in planes]
        colour = np.stack(resized[:3], axis=2)
        alpha = None
        if len(resized) == 4:
            alpha = np.clip(resized[3], 0, 1)[:, :, None]
            colour = np.where(alpha > 1e-6, colour / np.maximum(alpha, 1e-6), 0)
        colour = np.clip(colour, 0, 1) if kind == "srgb-lanczos3" else linear_to_srgb(colour)
        out = np.concatenate([colour, alpha], axis=2) if alpha is not None else colour
        pixels = np.clip(np.round(out * 255), 0, 255).astype(np.uint8)
        os.makedirs(self.cache, exist_ok=True)
        temporary = name + f".{os.getpid()}.tmp.png"
        Image.fromarray(pixels).save(temporary)
        os.replace(temporary, name)
        return name

    def composites(self):
        """The full-size image in 8-bit RGB over each background (one entry without alpha)."""
        pixels = self._load()
        if pixels.shape[2] == 3:
            return [pixels]
        alpha = pixels[:, :, 3:4].astype(np.float32) / 255
        colour = pixels[:, :, :3].astype(np.float32) / 255
        return [np.round((colour * alpha + b * (1 - alpha)) * 255).astype(np.uint8) for b in BACKGROUNDS]

    def linear_luminance(self):
        """The mean linear-light luminance (Rec. 709 weights) of the full-size image, premultiplied."""
        planes = self._planes("linear")
        return float(sum(w * plane.astype(np.float64).mean() for w, plane in zip((0.2126, 0.7152, 0.0722), planes)))


def footprint_range(full, size):
    """Per output pixel of `size`, the min and max of the source samples under it, widened to its 3x3 neighbourhood."""
    height, width = full.shape[:2]
    ys = np.floor(np.arange(size[1]) * height / size[1]).astype(int)
    xs = np.floor(np.arange(size[0]) * width / size[0]).astype(int)
    low = np.minimum.reduceat(np.minimum.reduceat(full, ys, axis=0), xs, axis=1)
    high = np.maximum.reduceat(np.maximum.reduceat(full, ys, axis=0), xs, axis=1)
    # A box's edge samples reach into the next box too: the 3x3 widening covers them.
    return ndimage.minimum_filter(low, size=(3, 3, 1)), ndimage.maximum_filter(high, size=(3, 3, 1))


def rgb_composites(image):
    """8-bit RGB arrays of a PIL image over each background (one entry without alpha)."""
    if image.mode not in ("RGBA", "LA"):
        return [np.asarray(image.convert("RGB"), dtype=np.float64)]
    array = np.asarray(image.convert("RGBA"), dtype=np.float64) / 255.0
    alpha = array[:, :, 3:4]
    return [np.round((array[:, :, :3] * alpha + b * (1 - alpha)) * 255) for b in BACKGROUNDS]


def outside(values, low, high):
    """Pixels with any channel more than HALO_LEVELS below `low` or above `high`."""
    values, low, high = (np.asarray(v, dtype=np.int32) for v in (values, low, high))
    return int(((values < low - HALO_LEVELS) | (values > high + HALO_LEVELS)).any(axis=2).sum())


def halo_counts(thumbnail, area_reference, source_ranges):
    """(halo_area, halo_source) of `thumbnail` (see the module's doc)."""
    with Image.open(thumbnail) as t, Image.open(area_reference) as r:
        shots, refs = rgb_composites(t), rgb_composites(r)
    if len(shots) != len(refs):
        shots, refs = shots * len(refs), refs * len(shots)
    area = max(
        outside(s, ndimage.minimum_filter(r, size=(3, 3, 1)), ndimage.maximum_filter(r, size=(3, 3, 1)))
        for s, r in zip(shots, refs)
    )
    ranges = source_ranges if len(source_ranges) == len(shots) else source_ranges * len(shots)
    source = max(outside(s, low, high) for s, (low, high) in zip(shots, ranges))
    return area, source


def linear_luminance_of(path):
    with Image.open(path) as image:
        array = np.asarray(image.convert("RGBA" if image.mode in ("RGBA", "LA") else "RGB"), dtype=np.float64) / 255.0
    linear = srgb_to_linear(array[:, :, :3])
    if array.shape[2] == 4:
        linear = linear * array[:, :, 3:4]
    return float((linear @ np.array([0.2126, 0.7152, 0.0722])).mean())


def pyvips_thumbnail(path, size, out):
    with open(path, "rb") as file:
        data = file.read()
    # Colour-managed to sRGB like the others, only when there is a profile
    # to apply: without one, libvips's export to sRGB shifts the colours.
    try:
        with Image.open(path) as probe:
            managed = {"export_profile": "srgb"} if probe.info.get("icc_profile") else {}
    except OSError:  # a format Pillow cannot open (HEIC, AVIF): photos made here carry no profile
        managed = {}
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
    paths = []
    for background, blended in zip(backgrounds, rgb_composites(image)):
        name = f"{path}.bg{int(background * 10)}.png"
        Image.fromarray(np.clip(blended, 0, 255).astype(np.uint8)).save(name)
        paths.append(name)
    return paths


def butteraugli(reference, distorted):
    run = subprocess.run(["butteraugli_main", reference, distorted], capture_output=True, text=True)
    if run.returncode != 0:
        return None
    lines = [line.strip() for line in run.stdout.splitlines() if line.strip()]
    return next((float(line.split(":")[1]) for line in lines if line.startswith("3-norm")), None)


def score(reference, distorted):
    """SSIMULACRA 2 and butteraugli 3-norm of `distorted` against `reference` (the worse background)."""
    refs = composites(reference, BACKGROUNDS)
    dists = composites(distorted, BACKGROUNDS)
    pairs = list(dict.fromkeys(zip(refs, dists)))
    ssim2 = min(compute_ssimulacra2(r, d) for r, d in pairs)
    norms = [n for n in (butteraugli(r, d) for r, d in pairs) if n is not None]
    return ssim2, (max(norms) if norms else None)


def score_file(job):
    """Every candidate's records for one manifest entry (run in a worker)."""
    index, entry, size, cache, baselines, work = job
    path = entry["path"]
    made = dict(entry.get("candidates", {}))
    for baseline in baselines:
        out = os.path.join(work, f"{index}-{baseline}.png")
        try:
            made[baseline] = (pyvips_thumbnail if baseline == "pyvips" else pillow_thumbnail)(path, size, out)
        except Exception as error:  # a baseline that cannot read a file is left out for it
            print(f"{baseline} failed on {path}: {error}", file=sys.stderr)
    source = Source(path, cache, entry.get("decoded"))
    is_pattern = entry.get("class", "").startswith(PATTERN_CLASS)
    source_luminance = source.linear_luminance() if is_pattern else None
    full = None
    ranges = {}
    records = []
    for name, thumbnail in made.items():
        with Image.open(thumbnail) as image:
            dimensions = image.size
        record = {
            "file": os.path.basename(path), "class": entry.get("class", "?"), "scale": entry.get("scale", "?"),
            "candidate": name, "width": dimensions[0], "height": dimensions[1], "thumbnail": thumbnail, "references": {},
        }
        for kind in REFERENCES:
            reference = source.reference(kind, dimensions)
            ssim2, norm = score(reference, thumbnail)
            record["references"][kind] = reference
            record[f"ssimulacra2:{kind}"] = ssim2
            record[f"butteraugli:{kind}"] = norm
        if dimensions not in ranges:
            if full is None:
                full = source.composites()
            ranges[dimensions] = [footprint_range(f, dimensions) for f in full]
        record["halo_area"], record["halo_source"] = halo_counts(thumbnail, record["references"]["linear-area"], ranges[dimensions])
        if is_pattern:
            record["luminance_error"] = 100 * (linear_luminance_of(thumbnail) - source_luminance) / source_luminance
        records.append(record)
    return records


def worst_crops(records, directory):
    """Side-by-side 4x crops of each class's worst file under each reference, into `directory`.

    Per class and reference: the file where the library falls furthest
    below pyvips under that reference (its lowest score when there is no
    pyvips record). A crop is the 64 x 64 window of the thumbnail where the
    library differs most from that reference (summed absolute difference,
    16-pixel steps), shown enlarged 4x with nearest-neighbour pixels, in the
    order reference, library, pyvips, Pillow, each labelled with its score
    under that reference. Returns the PNGs written.
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
        for kind in REFERENCES:
            metric = f"ssimulacra2:{kind}"

            def shortfall(row):
                peer = row[1].get("pyvips")
                return row[1]["library"][metric] - (peer[metric] if peer else 0)

            name, found = min(rows, key=shortfall)
            written.append(crop_sheet(label, kind, name, found, directory))
    with open(os.path.join(directory, "crops.json"), "w") as file:
        json.dump(written, file, indent=1)
    return written


def crop_sheet(label, kind, name, found, directory):
    """One side-by-side sheet for `found` (candidate -> record) under reference `kind`; see `worst_crops`."""
    from PIL import ImageDraw

    metric = f"ssimulacra2:{kind}"
    reference_path = found["library"]["references"][kind]
    reference = np.asarray(Image.open(reference_path).convert("RGB"), dtype=np.int32)
    library = np.asarray(Image.open(found["library"]["thumbnail"]).convert("RGB"), dtype=np.int32)
    side, zoom = min(64, reference.shape[0], reference.shape[1]), 4
    difference = np.abs(reference - library).sum(axis=2)
    windows = [
        (difference[y:y + side, x:x + side].sum(), y, x)
        for y in range(0, reference.shape[0] - side + 1, 16)
        for x in range(0, reference.shape[1] - side + 1, 16)
    ]
    _, top, left = max(windows)
    panels = [(f"{kind} reference", reference_path, None)] + [
        (candidate, found[candidate]["thumbnail"], found[candidate][metric])
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
    out = os.path.join(directory, f"{label.replace(' ', '-').lower()}-worst-{kind}.png")
    sheet.save(out, optimize=True)
    return {"class": label, "reference": kind, "file": name, "png": out, "window": [left, top, side],
            "scores": {candidate: found[candidate][metric] for candidate in found}}


def percentile(values, fraction):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    position = fraction * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarise(records, candidates, key):
    """Per group and candidate: each reference's median, 10th percentile and
    files more than 2 points below pyvips; butteraugli medians; halo counts
    (mean per thumbnail and files with any); the luminance error; and
    whether the targets of the thumbnail route hold against pyvips."""
    groups = {}
    for record in records:
        groups.setdefault(key(record), {}).setdefault(record["candidate"], {})[record["file"]] = record
    lines = []
    for group in sorted(groups):
        by_candidate = groups[group]
        peer = by_candidate.get("pyvips", {})
        for name in candidates:
            rows = by_candidate.get(name)
            if not rows:
                continue
            line = {"group": group, "candidate": name, "files": len(rows)}
            for kind in REFERENCES:
                metric = f"ssimulacra2:{kind}"
                scores = [r[metric] for r in rows.values()]
                norms = [r[f"butteraugli:{kind}"] for r in rows.values() if r[f"butteraugli:{kind}"] is not None]
                line[f"{kind}:median"] = statistics.median(scores)
                line[f"{kind}:p10"] = percentile(scores, 0.1)
                line[f"{kind}:butteraugli_median"] = statistics.median(norms) if norms else None
                if name != "pyvips":
                    line[f"{kind}:worse_than_pyvips_by_2"] = sum(
                        1 for f, r in rows.items() if f in peer and r[metric] < peer[f][metric] - 2)
            for halo in ("halo_area", "halo_source"):
                counts = [r[halo] for r in rows.values()]
                line[f"{halo}:mean"] = statistics.mean(counts)
                line[f"{halo}:files"] = sum(1 for c in counts if c > 0)
            errors = [r["luminance_error"] for r in rows.values() if "luminance_error" in r]
            if errors:
                line["luminance_error:mean_abs"] = statistics.mean(abs(e) for e in errors)
                line["luminance_error:worst"] = min(errors, key=lambda e: -abs(e))
            if name != "pyvips" and peer:
                pv = next((candidate for candidate in lines if candidate["group"] == group and candidate["candidate"] == "pyvips"), None)
                pv = pv or summarise_one(peer)
                line["targets"] = {name: bool(met) for name, met in {
                    "area median >= pyvips": line["linear-area:median"] >= pv["linear-area:median"],
                    "<= 1 in 10 worse by > 2 (area)": line["linear-area:worse_than_pyvips_by_2"] * 10 <= len(rows),
                    "linear Lanczos median >= pyvips - 3": line["linear-lanczos3:median"] >= pv["linear-lanczos3:median"] - 3,
                    "sRGB Lanczos median >= pyvips - 3": line["srgb-lanczos3:median"] >= pv["srgb-lanczos3:median"] - 3,
                    "halo pixels <= pyvips": line["halo_area:mean"] <= pv["halo_area:mean"],
                }.items()}
            lines.append(line)
    return lines


def summarise_one(rows):
    """The medians and halo means of one candidate's records (for the target checks)."""
    line = {f"{kind}:median": statistics.median(r[f"ssimulacra2:{kind}"] for r in rows.values()) for kind in REFERENCES}
    line["halo_area:mean"] = statistics.mean(r["halo_area"] for r in rows.values())
    return line


# --- the line-pattern set ---

def pattern_images():
    """(name, uint8 RGB array) pairs: fine light-on-dark patterns at 2048 x 1536."""
    height, width = 1536, 2048
    y, x = np.mgrid[0:height, 0:width]
    dark, light = 16, 235

    def grey(mask, low=dark, high=light):
        plane = np.where(mask, high, low).astype(np.uint8)
        return np.repeat(plane[:, :, None], 3, axis=2)

    patterns = [
        ("vertical-lines-1on1", grey(x % 2 == 0)),
        ("vertical-lines-1on2", grey(x % 3 == 0)),
        ("horizontal-lines-1on3", grey(y % 4 == 0)),
        ("diagonal-lines-1on2", grey((x + y) % 3 == 0)),
        ("checkerboard-1px", grey((x + y) % 2 == 0)),
        ("checkerboard-2px", grey((x // 2 + y // 2) % 2 == 0)),
        ("dots-1on3", grey((x % 4 == 0) & (y % 4 == 0))),
        ("grid-1on5", grey((x % 6 == 0) | (y % 6 == 0))),
    ]
    # Coloured: thin red and green lines on blue, and a bright-on-dark grid inside a mid-grey frame.
    coloured = np.zeros((height, width, 3), dtype=np.uint8)
    coloured[:, :, 2] = 60
    coloured[x % 3 == 0, 0] = 240
    coloured[y % 3 == 0, 1] = 220
    patterns.append(("red-green-lines-on-blue", coloured))
    framed = grey((x % 2 == 0) & (y % 2 == 0))
    inner = (x > width // 4) & (x < 3 * width // 4) & (y > height // 4) & (y < 3 * height // 4)
    framed[~inner] = 128
    patterns.append(("framed-dots-1on1", framed))
    return patterns


def make_patterns(directory):
    """Writes the pattern set as PNG and as JPEG (quality 95, 4:4:4, baseline); returns the paths."""
    os.makedirs(directory, exist_ok=True)
    paths = []
    for name, pixels in pattern_images():
        image = Image.fromarray(pixels)
        png = os.path.join(directory, f"{name}.png")
        jpeg = os.path.join(directory, f"{name}.jpg")
        if not os.path.exists(png):
            image.save(png, optimize=False, compress_level=6)
        if not os.path.exists(jpeg):
            image.save(jpeg, quality=95, subsampling=0)
        paths += [png, jpeg]
    return paths


def self_test():
    """The area reference against block means (integer factors) and against a brute-force average (fractional ones)."""
    rng = np.random.default_rng(7)
    plane = rng.random((60, 90))
    blocks = plane.reshape(20, 3, 30, 3).mean(axis=(1, 3))
    assert np.allclose(area_resize(plane, (30, 20)), blocks), "area average differs from 3x3 block means"
    # 90 -> 40 columns (2.25 each), 60 -> 25 rows (2.4 each): upsample 20x by repetition, then block means.
    fine = np.repeat(np.repeat(plane, 20, axis=0), 20, axis=1)
    brute = fine.reshape(25, 48, 40, 45).mean(axis=(1, 3))
    assert np.allclose(area_resize(plane, (40, 25)), brute), "area average differs from the supersampled one"
    print("self-test: the area reference matches block means and a 20x supersampled average")
    return 0


def main():
    arguments = sys.argv[1:]
    if arguments[:1] == ["--self-test"]:
        return self_test()
    if len(arguments) == 2 and arguments[0] == "--make-patterns":
        for path in make_patterns(arguments[1]):
            print(path)
        return 0
    jobs = 2
    if "--jobs" in arguments:
        at = arguments.index("--jobs")
        jobs = int(arguments[at + 1])
        del arguments[at:at + 2]
    if len(arguments) != 2:
        print(__doc__, file=sys.stderr)
        return 64
    with open(arguments[0]) as file:
        manifest = json.load(file)
    size = int(manifest.get("size", 256))
    cache = manifest.get("cache") or os.path.join(tempfile.gettempdir(), "awi-quality-references")
    baselines = [b for b in manifest.get("baselines", ["pyvips", "pillow"]) if b != "pyvips" or pyvips is not None]
    work = tempfile.mkdtemp(prefix="awi-quality-")
    jobs_list = [(i, entry, size, cache, baselines, work) for i, entry in enumerate(manifest["files"])]
    records = []
    with multiprocessing.Pool(jobs) as pool:
        for done, found in enumerate(pool.imap(score_file, jobs_list), start=1):
            records += found
            print(f"\r{done}/{len(jobs_list)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    candidates = list(dict.fromkeys(record["candidate"] for record in records))
    # The scale of a baseline's row is the library's, so rows line up file by file.
    summary = {
        "by_class": summarise(records, candidates, lambda r: r["class"]),
        "by_scale": summarise(records, candidates, lambda r: f'{r["class"]} @ {r["scale"]}'),
    }
    if manifest.get("crops"):
        for crop in worst_crops([r for r in records if not r["class"].startswith(PATTERN_CLASS)], manifest["crops"]):
            print(f'crop: {crop["class"]} / {crop["reference"]}: {crop["file"]} -> {crop["png"]}', file=sys.stderr)
    with open(arguments[1], "w") as file:
        json.dump({"records": records, "summary": summary}, file, indent=1)
    print_summary(summary)
    return 0


def print_summary(summary):
    for section in ("by_class", "by_scale"):
        print(f"## {section}")
        print(f'{"group":40} {"candidate":16} {"n":>3} | {"area":>5} {"<pv":>3} | {"linL3":>5} {"<pv":>3} | {"sRGBL3":>6} {"<pv":>3} '
              f'| {"butt.a":>6} | {"halo.a":>7} {"halo.s":>7} | {"lum%":>6} | targets')
        for line in summary[section]:
            def worse(kind):
                value = line.get(f"{kind}:worse_than_pyvips_by_2")
                return "  -" if value is None else f"{value:3d}"
            butter = line["linear-area:butteraugli_median"]
            luminance = line.get("luminance_error:mean_abs")
            targets = line.get("targets")
            verdict = "-" if targets is None else ("all met" if all(targets.values()) else
                                                   "missed: " + "; ".join(k for k, v in targets.items() if not v))
            print(f'{line["group"][:40]:40} {line["candidate"][:16]:16} {line["files"]:3d} | '
                  f'{line["linear-area:median"]:5.1f} {worse("linear-area")} | {line["linear-lanczos3:median"]:5.1f} {worse("linear-lanczos3")} | '
                  f'{line["srgb-lanczos3:median"]:6.1f} {worse("srgb-lanczos3")} | {(f"{butter:6.2f}" if butter is not None else "     -")} | '
                  f'{line["halo_area:mean"]:7.1f} {line["halo_source:mean"]:7.1f} | '
                  f'{(f"{luminance:6.1f}" if luminance is not None else "     -")} | {verdict}')


if __name__ == "__main__":
    sys.exit(main())
