UPDATE frames SET file = '/etc/passwd', line = 1, is_user = 1, kind = 1 WHERE id = (SELECT min(id) FROM frames);
