DROP TABLE memsets;
