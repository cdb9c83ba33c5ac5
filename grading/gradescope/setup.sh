#!/bin/sh
# Gradescope "setup.sh": runs once when the autograder image is built. The autograder zip contains
# this repository (zip the repository with grading/gradescope/setup.sh and run_autograder at the
# top, as Gradescope requires — see grading/README.md).
set -eu
cd /autograder/source
sh common/mk/deps.sh
make -s grader-ready
