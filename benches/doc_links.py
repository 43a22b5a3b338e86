#!/usr/bin/env python3
"""Checks that every relative link and image in the project's Markdown
(README.md, ARCHITECTURE.md, docs/, notebooks/, runs/, benches/) names a
file or folder that git tracks, so that a clone shows every figure and
follows every link. Prints each broken link and exits 1 if there is one.

    python3 benches/doc_links.py
"""
import re
import subprocess
import sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent
tracked = set(subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True,
                             text=True).stdout.split("\0")) - {""}
folders = set()
for f in tracked:
    parent = Path(f).parent
    while str(parent) != ".":
        folders.add(str(parent))
        parent = parent.parent

# [text](target) and ![alt](target), the target up to a space or ')'.
link = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)")
pages = [f for f in sorted(tracked) if f.endswith(".md")]
broken = []
for page in pages:
    text = (root / page).read_text(encoding="utf-8")
    # Code blocks and inline code hold commands, not links.
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    for target in link.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0]
        resolved = (root / page).parent.joinpath(path).resolve()
        try:
            rel = str(resolved.relative_to(root))
        except ValueError:
            broken.append(f"{page}: {target} (outside the repository)")
            continue
        if rel not in tracked and rel not in folders and rel != ".":
            state = "exists but is not tracked" if resolved.exists() else "missing"
            broken.append(f"{page}: {target} ({state})")
for b in broken:
    print(b)
print(f"{len(pages)} pages checked, {len(broken)} broken links")
sys.exit(1 if broken else 0)
