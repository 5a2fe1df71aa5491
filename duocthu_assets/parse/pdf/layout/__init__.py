"""pdf/layout"""
