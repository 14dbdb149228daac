UPDATE ranges SET depth = 100000 WHERE id = 1; UPDATE ranges SET depth = -1 WHERE id = 2;
