"""What data_prep/nmt.py's two preparations share (Multi30k + newstest2014, and your own parallel text in
nmt_own.py): its messages, hashes, and the SentencePiece steps (spm_train with the exact command recorded beside
the model, and the spm_encode | spm_decode round trip that checks it). Standard library only."""
import hashlib
import os
import shutil
import subprocess

from prep_common import messages

SPM_TOOLS = ("spm_train", "spm_encode", "spm_decode")
PROG = "data_prep/nmt.py"
fail, warn, note = messages(PROG)


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def lines_of(data):
    ls = data.split(b"\n")
    return ls[:-1] if ls and ls[-1] == b"" else ls



def require_spm_tools():
    for tool in SPM_TOOLS:
        if shutil.which(tool) is None:
            fail(f"{tool} not found: `make deps` installs the Debian package sentencepiece "
                 f"(or: apt-get install sentencepiece)")


def spm_train(tmp, bpe, models, args, langs, where=None):
    """Learn the models with paths relative to tmp, so the .model bytes do not depend on tmp's name."""
    cmds = []
    for name, model_langs in models.items():
        cmd = ["spm_train", "--input=" + ",".join(f"train.tok.{lang}" for lang in model_langs),
               f"--model_prefix={bpe}/{name}", "--model_type=bpe", f"--vocab_size={args.vocab_size}",
               "--character_coverage=1.0", "--input_sentence_size=0", "--shuffle_input_sentence=false",
               "--random_seed=1", "--num_threads=1", "--pad_id=0", "--bos_id=1", "--eos_id=2", "--unk_id=3",
               "--normalization_rule_name=identity", f"--byte_fallback={str(args.byte_fallback).lower()}"]
        cmds.append(" ".join(cmd))
        r = subprocess.run(cmd, cwd=tmp, capture_output=True)
        with open(os.path.join(tmp, bpe, "spm_train.log"), "ab") as f:
            f.write(r.stdout + r.stderr)
        if r.returncode != 0:
            tail = (r.stderr or r.stdout).decode(errors="replace").strip().splitlines()[-3:]
            fail(f"spm_train failed (exit {r.returncode}) for {bpe}/{name}: {' | '.join(tail)}")
    with open(os.path.join(tmp, bpe, "spm_train.cmd"), "w") as f:
        f.write(f"# {spm_version()}; run in {where or args.out}/ (the folder that holds "
                f"{', '.join(f'train.tok.{lang}' for lang in langs)})\n")
        for lang in langs:
            f.write(f"# train.tok.{lang} sha256 {file_sha256(os.path.join(tmp, f'train.tok.{lang}'))}\n")
        f.writelines(c + "\n" for c in cmds)


def spm_version():
    r = subprocess.run(["spm_train", "--version"], capture_output=True, text=True)
    return (r.stdout + r.stderr).strip()


def file_sha256(path):
    with open(path, "rb") as f:
        return sha256(f.read())


def roundtrip(tmp, model, name):
    """spm_encode --output_format=id | spm_decode on tmp/name: (lines, identical lines, lines with <unk>)."""
    with open(os.path.join(tmp, name), "rb") as f:
        data = f.read()
    enc = subprocess.run(["spm_encode", f"--model={model}", "--output_format=id"], input=data, cwd=tmp,
                         capture_output=True)
    dec = subprocess.run(["spm_decode", f"--model={model}", "--input_format=id"], input=enc.stdout, cwd=tmp,
                         capture_output=True)
    if enc.returncode or dec.returncode:
        err = (enc.stderr + dec.stderr).decode(errors="replace").strip()
        fail(f"spm_encode | spm_decode failed on {name}: {err}")
    a, b, ids = lines_of(data), lines_of(dec.stdout), lines_of(enc.stdout)
    if len(a) != len(b):
        fail(f"spm_decode gave {len(b)} lines for the {len(a)} of {name}")
    return len(a), sum(x == y for x, y in zip(a, b)), sum(b"3" in line.split() for line in ids)
