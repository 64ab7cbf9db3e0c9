#!/usr/bin/env python3
"""README code comes from compiled examples.

Every ```cpp block in the README sections named on the command line must be
a snippet of an example program: the lines between "// [snippet:NAME]" and
"// [/snippet:NAME]" in examples/*.cpp, without their common indentation.

  readme_snippets.py ROOT SECTION...        check (exit 1 on a stray block)
  readme_snippets.py ROOT --print NAME      print one snippet (for editing the README)
"""
import glob
import os
import re
import sys


def snippets(root):
    out = {}
    for path in sorted(glob.glob(os.path.join(root, "examples", "*.cpp"))):
        name, body = None, []
        for line in open(path, encoding="utf-8").read().split("\n"):
            m = re.match(r"\s*// \[(/?)snippet:([\w-]+)\]\s*$", line)
            if m and not m.group(1):
                name, body = m.group(2), []
            elif m and name:
                indent = min((len(l) - len(l.lstrip(" ")) for l in body if l.strip()), default=0)
                out[name] = "\n".join(l[indent:] for l in body) + "\n"
                name = None
            elif name:
                body.append(line)
    return out


def main():
    root = sys.argv[1]
    snips = snippets(root)
    if sys.argv[2] == "--print":
        sys.stdout.write(snips[sys.argv[3]])
        return 0
    readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    bad = 0
    for section in sys.argv[2:]:
        m = re.search(r"<!-- section:%s -->(.*?)<!-- /section:%s -->" % (section, section), readme, re.S)
        if not m:
            print("README.md has no section %r" % section)
            return 1
        blocks = re.findall(r"```cpp\n(.*?)```", m.group(1), re.S)
        for b in blocks:
            if b not in snips.values():
                print("README section %r: this code block is not an examples/ snippet:\n%s" % (section, b))
                bad += 1
        print("README section %r: %d code blocks, %d not from examples/" % (section, len(blocks), bad))
        if not blocks:
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
