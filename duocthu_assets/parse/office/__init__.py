"""office"""
