# Lesson 12's failure tooling, included at the end of lessons/12-failures/lesson.mk: the elastic
# launcher, torchrun's role (given code), one of the lesson's programs.
L12_MAINS += elastic_run.c
