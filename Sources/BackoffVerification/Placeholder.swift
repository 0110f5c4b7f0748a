import Statistics
