# Lesson 12's failure tooling, included at the end of lessons/12-failures/lesson.mk: the elastic
# launcher, torchrun's role (given code), one of the lesson's programs, and the lab.
L12_MAINS += elastic_run.c

# The failures lab (see lessons/12-failures/failures_lab.sh): a restart judged against the
# uninterrupted run, and the checkpoint interval against Young-Daly's, into out/failures/
.PHONY: failures
failures: all
	@sh lessons/12-failures/failures_lab.sh out/failures
