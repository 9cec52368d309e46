#!/usr/bin/env python3
"""Scores AsyncWebImage, Pillow and pyvips on public conformance suites.

Run by scripts/conformance (which builds awi-decode first). Each suite is a
folder of public files that no one here wrote, brought next to the checkout
and never committed (see scripts/conformance for where each comes from).
A file passes when the decoder's pixels equal the reference decoder's
(8-bit RGBA; fully transparent pixels compare by alpha only), or when both
refuse it. Crashes of awi-decode are counted separately.

  suite   reference
  png     ImageMagick (libpng), raw samples (no gamma/ICC conversion on
          either side: `-type` would make ImageMagick apply gAMA); 16-bit
          files within 1 (rounding against truncation to 8 bits)
  apng    apngdis's frames (ImageMagick's default image when apngdis refuses)
  gif     the suite's expected frames (.rgba / .png next to each .conf)
  jpeg    djpeg (and `jpeg-decode-available`: the same files with
          JPEGCoder(damagedDataPolicy: .decodeAvailable) registered)
  webp    dwebp
  avif    avifdec --no-strict (8-bit)
  bmp     ImageMagick (the BMP Suite: good, questionable and bad files);
          libvips reads BMP through ImageMagick (magickload), so its column
          agrees with the reference by construction
  tiff    ImageMagick (libtiff); 16-bit files within 1

A CMYK reference is ImageMagick's CMYK-to-sRGB conversion (its PAM would
otherwise hold the four inks); pyvips's CMYK images go through libvips's
`colourspace("srgb")`.
"""
import configparser, os, subprocess, sys, tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DECODE = Path(os.environ.get("AWI_DECODE", ROOT / ".build" / "debug" / "awi-decode"))

def read_pam(path):
    """An 8-bit PAM file as (width, height, RGBA bytes), whatever its depth."""
    data = Path(path).read_bytes()
    end = data.index(b"ENDHDR\n")
    fields = dict(line.split(" ", 1) for line in data[:end].decode("latin-1").splitlines() if " " in line and not line.startswith("#"))
    width, height, depth = int(fields["WIDTH"]), int(fields["HEIGHT"]), int(fields["DEPTH"])
    maximum = int(fields.get("MAXVAL", "255"))
    pixels = data[end + 7:]
    if maximum != 255:
        pixels = bytes(v * 255 // maximum for v in pixels)
    if depth == 4:
        return width, height, pixels
    rgba = bytearray()
    for i in range(0, width * height * depth, depth):
        p = pixels[i:i + depth]
        if depth == 1:
            rgba += bytes([p[0], p[0], p[0], 255])
        elif depth == 2:
            rgba += bytes([p[0], p[0], p[0], p[1]])
        else:
            rgba += bytes(p) + b"\xff"
    return width, height, bytes(rgba)

def same(a, b, tolerance=0):
    if a is None or b is None:
        return a is None and b is None
    (w1, h1, p1), (w2, h2, p2) = a, b
    if (w1, h1) != (w2, h2) or len(p1) != len(p2):
        return False
    if p1 == p2:  # the common case, without the per-pixel loop (large AVIF files take minutes in it)
        return True
    for i in range(0, len(p1), 4):
        if p1[i + 3] == 0 and p2[i + 3] == 0:
            continue
        for c in range(4):
            if abs(p1[i + c] - p2[i + c]) > tolerance:
                return False
    return True

def magick(path, out):
    r = subprocess.run(["/usr/bin/convert", str(path) + "[0]", "-depth", "8", "pam:" + str(out)], capture_output=True)
    if r.returncode != 0 or not Path(out).exists() or Path(out).stat().st_size == 0:
        return None
    # A CMYK image comes out as a CMYK PAM, whose four inks would be read as
    # RGBA: the reference is then ImageMagick's naive CMYK-to-sRGB conversion.
    if b"TUPLTYPE CMYK" in Path(out).read_bytes()[:200]:
        subprocess.run(["/usr/bin/convert", str(path) + "[0]", "-colorspace", "sRGB", "-depth", "8", "pam:" + str(out)], capture_output=True)
    return read_pam(out)

def via_png(command, out_png, out_pam):
    r = subprocess.run(command, capture_output=True)
    if r.returncode not in (0, 2) or not Path(out_png).exists() or Path(out_png).stat().st_size == 0:
        return None
    return magick(out_png, out_pam)

def pillow(path, frame=None):
    from PIL import Image
    try:
        with Image.open(path) as im:
            if frame == "last":
                im.seek(getattr(im, "n_frames", 1) - 1)
            elif isinstance(frame, int):
                im.seek(frame)
            im.load()
            rgba = im.convert("RGBA")
            return rgba.width, rgba.height, rgba.tobytes()
    except Exception:
        return None

def vips(path, page=None):
    import pyvips
    try:
        kwargs = {}
        if page == "last":
            n = pyvips.Image.new_from_file(str(path)).get_n_pages()
            kwargs["page"] = max(0, n - 1)
        elif isinstance(page, int):
            kwargs["page"] = page
        im = pyvips.Image.new_from_file(str(path), **kwargs)
        if im.interpretation == "cmyk":  # its inks are not RGBA: libvips's own conversion
            im = im.colourspace("srgb")
        if im.format != "uchar":
            im = im.cast("uchar") if im.interpretation not in ("rgb16", "grey16") else (im / 257).cast("uchar")
        if im.bands == 1: im = im.bandjoin([im, im, 255])
        elif im.bands == 2: im = im[0].bandjoin([im[0], im[0], im[1]])
        elif im.bands == 3: im = im.bandjoin(255)
        elif im.bands > 4: im = im[:4]
        return im.width, im.height, bytes(im.write_to_memory())
    except Exception:
        return None

def awi(files, out, extra=()):
    # Raw samples, as the reference decoders, Pillow and pyvips give them:
    # embedded profiles are left unapplied (colour management is not what
    # these suites score).
    r = subprocess.run([str(DECODE), "--keep-profile", *extra, str(out), *map(str, files)], capture_output=True)
    return r.returncode

def awi_result(out, name, frame=None):
    path = out / (name + (f".{frame}" if frame is not None else "") + ".pam")
    return read_pam(path) if path.exists() else None

def score(suite, files, reference, awi_extra=(), frames=None, tolerance=lambda f: 0):
    work = Path(tempfile.mkdtemp(prefix=f"conformance-{suite}-"))
    out = work / "awi"
    crashed = 0
    # One process per file: a crash costs one file, and is counted. One
    # output folder per file too: suites merged from several sets repeat
    # names (link-u's samples, in both AVIF sets, differ between them).
    for index, f in enumerate(files):
        if awi([f], out / str(index), awi_extra) != 0:
            crashed += 1
    results = {"awi": 0, "pillow": 0, "pyvips": 0}
    failures = {"awi": [], "pillow": [], "pyvips": []}
    for index, f in enumerate(files):
        ref = reference(f, work)
        candidates = {"awi": awi_result(out / str(index), f.name), "pillow": pillow(f), "pyvips": vips(f)}
        for name, got in candidates.items():
            if same(got, ref, tolerance(f)):
                results[name] += 1
            else:
                failures[name].append(f.name)
    return results, failures, crashed, len(files)

def png_suite(directory):
    files = sorted(Path(directory).glob("*.png"))
    # 16-bit samples: within 1, the stated tolerance (PNGCoder rounds to 8
    # bits; ImageMagick and libvips truncate), for every decoder alike.
    def sixteen_bit(f):
        data = f.read_bytes()
        return 1 if len(data) > 24 and data[12:16] == b"IHDR" and data[24] == 16 else 0
    return score("png", files, lambda f, w: magick(f, w / (f.name + ".ref.pam")), tolerance=sixteen_bit)

def jpeg_suite(directory, awi_extra=()):
    files = sorted(p for p in Path(directory).iterdir() if p.suffix.lower() in (".jpg", ".jpeg"))
    ref = lambda f, w: via_png(["sh", "-c", f"djpeg -pnm '{f}' > '{w / (f.name + '.ppm')}'"], w / (f.name + ".ppm"), w / (f.name + ".ref.pam"))
    return score("jpeg", files, ref, awi_extra=awi_extra)

def jpeg_decode_available_suite(directory):
    """The JPEG suite with JPEGCoder(damagedDataPolicy: .decodeAvailable) registered."""
    return jpeg_suite(directory, awi_extra=("--jpeg-decode-available",))

def webp_suite(directory):
    files = sorted(Path(directory).glob("*.webp"))
    ref = lambda f, w: via_png(["dwebp", str(f), "-pam", "-o", str(w / (f.name + ".ref.pam"))], w / (f.name + ".ref.pam"), w / (f.name + ".ref2.pam"))
    return score("webp", files, ref)

def avif_suite(directory):
    files = sorted(Path(directory).rglob("*.avif"))
    ref = lambda f, w: via_png(["avifdec", "--no-strict", "-d", "8", str(f), str(w / (f.name + ".png"))], w / (f.name + ".png"), w / (f.name + ".ref.pam"))
    return score("avif", files, ref)

def gif_suite(directory):
    directory = Path(directory)
    tests = [t.strip() for t in (directory / "TESTS").read_text().splitlines() if t.strip()]
    work = Path(tempfile.mkdtemp(prefix="conformance-gif-"))
    out = work / "awi"
    results = {"awi": 0, "pillow": 0, "pyvips": 0}
    failures = {"awi": [], "pillow": [], "pyvips": []}
    crashed = 0
    for test in tests:
        conf = configparser.ConfigParser()
        conf.read(directory / f"{test}.conf")
        gif = directory / conf["config"]["input"]
        if awi([gif], out, ("--frames",)) != 0:
            crashed += 1
        names = [n.strip() for n in conf["config"].get("frames", "").split(",") if n.strip()]
        expected = []
        for n in names:
            section = conf[n]
            if "pixels" in section:
                w, h = int(conf["config"]["width"]), int(conf["config"]["height"])
                expected.append((w, h, (directory / section["pixels"]).read_bytes()))
            else:
                expected.append(magick(directory / section["image"], work / f"{test}-{n}.pam"))
        def frames_of(get):
            return [get(i) for i in range(len(expected))] if expected else [get(0)]
        n_awi = awi_result(out, gif.name)
        awi_frames = [awi_result(out, gif.name, i) or (n_awi if i == 0 else None) for i in range(len(expected))] if expected else [n_awi]
        candidates = {
            "awi": awi_frames,
            "pillow": frames_of(lambda i: pillow(gif, i)),
            "pyvips": frames_of(lambda i: vips(gif, i)),
        }
        for name, got in candidates.items():
            ok = all(g is None for g in got) if not expected else all(same(g, e) for g, e in zip(got, expected))
            if ok:
                results[name] += 1
            else:
                failures[name].append(test)
    return results, failures, crashed, len(tests)

def apng_suite(directory):
    """Every frame against apngdis's (the APNG assembler's disassembler,
    whose frames are whole canvases); a file apngdis refuses against its
    default image (ImageMagick), which the APNG specification then shows.
    apngdis lists a default image that is not part of the animation as its
    frame 0: with one frame more than the decoder gives, that one is skipped."""
    files = sorted(Path(directory).glob("*.png"))
    work = Path(tempfile.mkdtemp(prefix="conformance-apng-"))
    out = work / "awi"
    results = {"awi": 0, "pillow": 0, "pyvips": 0}
    failures = {"awi": [], "pillow": [], "pyvips": []}
    crashed = 0
    for f in files:
        if awi([f], out, ("--frames",)) != 0:
            crashed += 1
        frames_dir = work / f.stem
        frames_dir.mkdir()
        copy = frames_dir / f.name
        copy.write_bytes(f.read_bytes())
        subprocess.run(["apngdis", str(copy), "frame"], cwd=frames_dir, capture_output=True)
        reference = [magick(p, p.with_suffix(".pam")) for p in sorted(frames_dir.glob("frame*.png"))]
        if not reference:
            reference = [magick(f, work / (f.name + ".ref.pam"))]
        ours, index = [], 0
        while (out / f"{f.name}.{index}.pam").exists():
            ours.append(awi_result(out, f.name, index))
            index += 1
        if not ours:
            ours = [awi_result(out, f.name)]
        def matches(got):
            expected = reference[1:] if len(reference) == len(got) + 1 else reference
            return len(got) == len(expected) and all(same(g, e) for g, e in zip(got, expected))
        try:
            from PIL import Image
            with Image.open(f) as im:
                count = getattr(im, "n_frames", 1)
            pil = [pillow(f, i) for i in range(count)]
        except Exception:
            pil = [None]
        try:
            import pyvips
            pages = pyvips.Image.new_from_file(str(f)).get_n_pages()
            vps = [vips(f, i) for i in range(pages)]
        except Exception:
            vps = [None]
        for name, got in {"awi": ours, "pillow": pil, "pyvips": vps}.items():
            if matches(got): results[name] += 1
            else: failures[name].append(f.name)
    return results, failures, crashed, len(files)

def magick_suite(directory, extensions, tolerance=lambda f: 0):
    """Every file with one of `extensions` (recursively) against ImageMagick's decode of its first image."""
    files = sorted(p for p in Path(directory).rglob("*") if p.suffix.lower() in extensions)
    return score("magick", files, lambda f, w: magick(f, w / (f.name + ".ref.pam")), tolerance=tolerance)

def tiff_sixteen_bit(f):
    """1 for a TIFF of 16-bit samples (8-bit rounding against ImageMagick's truncation), else 0."""
    info = subprocess.run(["tiffinfo", str(f)], capture_output=True, text=True, errors="replace").stdout
    return 1 if "Bits/Sample: 16" in info else 0

SUITES = {
    "png": png_suite, "apng": apng_suite, "gif": gif_suite, "jpeg": jpeg_suite, "webp": webp_suite, "avif": avif_suite,
    "bmp": lambda d: magick_suite(d, {".bmp"}), "tiff": lambda d: magick_suite(d, {".tif", ".tiff"}, tiff_sixteen_bit),
}
# The same folder scored with another option: `jpeg-decode-available` reads SUITES/jpeg.
VARIANTS = {"jpeg-decode-available": ("jpeg", jpeg_decode_available_suite)}

if __name__ == "__main__":
    root = Path(sys.argv[1])
    chosen = sys.argv[2:] or list(SUITES)
    print("| suite | files | AsyncWebImage | Pillow | pyvips | awi-decode crashes |")
    print("|---|---|---|---|---|---|")
    details = []
    for suite in chosen:
        folder, run = VARIANTS.get(suite, (suite, SUITES.get(suite)))
        directory = root / folder
        if run is None or not directory.exists():
            continue
        results, failures, crashed, total = run(directory)
        print(f"| {suite} | {total} | {results['awi']} | {results['pillow']} | {results['pyvips']} | {crashed} |", flush=True)
        details.append((suite, failures))
    for suite, failures in details:
        print(f"\n{suite}: AsyncWebImage differs on: {', '.join(failures['awi']) or 'none'}")
        # The files that decide "ahead of or equal to the best peer": a peer
        # matches the reference there and the library does not.
        behind = [f"{name} ({' and '.join(peer for peer in ('pillow', 'pyvips') if name not in failures[peer])})"
                  for name in failures["awi"] if name not in failures["pillow"] or name not in failures["pyvips"]]
        print(f"{suite}: a peer matches, AsyncWebImage does not: {', '.join(behind) or 'none'}")
